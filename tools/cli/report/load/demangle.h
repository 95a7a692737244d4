/* C++ names as people read them: "ns::Trainer::step(int)" for
 * "_ZN2ns7Trainer4stepEi". demangle.c */
#ifndef NCCLTAP_CLI_DEMANGLE_H
#define NCCLTAP_CLI_DEMANGLE_H

/* The demangled form of `name` (malloc'ed), or NULL when it is not a
 * mangled C++ name or cannot be demangled (then use it as it is). */
char *demangle(const char *name);

#endif
