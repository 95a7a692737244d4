/* libstdc++'s __cxa_demangle, the demangler of the compiler that mangled
 * the names, found at run time: nccltap stays a C program with no link
 * dependency on the C++ runtime, and where libstdc++ is absent names are
 * shown mangled. */
#include "demangle.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn demangler(void)
{
    static cxa_demangle_fn fn;
    static int tried;
    if (!tried) {
        tried = 1;
        void *lib = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL); /* never closed */
        if (lib)
            *(void **)&fn = dlsym(lib, "__cxa_demangle");
    }
    return fn;
}

char *demangle(const char *name)
{
    if (strncmp(name, "_Z", 2) != 0)
        return NULL;
    cxa_demangle_fn fn = demangler();
    int status = -1;
    char *out = fn ? fn(name, NULL, NULL, &status) : NULL;
    return status == 0 ? out : NULL;
}
