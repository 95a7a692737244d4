/* At unload, in a process where no NCCL function reached nccltap: says on
 * stderr why NCCL may have been called all the same, unseen (README,
 * Limitations), where the process shows it: NCCL defined ahead of nccltap
 * (linked statically into the program or a library the program binds to
 * first), or libnccl loaded although no call came through nccltap (a
 * library that loaded it with RTLD_DEEPBIND binds to it directly). Says
 * nothing where neither is so: a program without NCCL pays one check.
 * Called once, from the unload; any thread. */
#ifndef NCCLTAP_UNSEEN_H
#define NCCLTAP_UNSEEN_H

void tap_say_unseen_nccl(void);

#endif
