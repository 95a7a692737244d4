/* At unload, in a process where no NCCL function reached nccltap: says on
 * stderr why NCCL may have been called all the same, unseen (README,
 * Limitations), where the process shows it: NCCL defined ahead of nccltap
 * (linked statically into the program or a library the program binds to
 * first), or a library bound to libnccl directly for a function nccltap
 * wraps (loaded with RTLD_DEEPBIND: its GOT holds libnccl's addresses,
 * base/got_scan.h; a slot of a function nccltap does not wrap, such as
 * ncclGetVersion, is no evidence: it is bound to libnccl in every
 * process). Says nothing where neither is so: a program without NCCL pays
 * one check, one that links NCCL and made no call (a launcher, the
 * torchrun agent) or asked only its version a walk of the GOTs.
 * Called once, from the unload; any thread. */
#ifndef NCCLTAP_UNSEEN_H
#define NCCLTAP_UNSEEN_H

void tap_say_unseen_nccl(void);

#endif
