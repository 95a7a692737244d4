/* Preloaded after nccltap: says on stderr each setenv, putenv or unsetenv
 * made while the process has more than one thread, then makes it. glibc's
 * setenv may free the environment array that another thread's getenv is
 * reading; a preloaded library must never do it once the program's
 * threads run (shim.no_setenv_beside_threads). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int threads(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    char line[256];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1)
            break;
    if (f)
        fclose(f);
    return n;
}

static void watch(const char *fn, const char *name)
{
    int n = threads();
    if (n > 1)
        fprintf(stderr, "setenv_watch: %s(%.*s) with %d threads\n", fn, (int)strcspn(name, "="), name, n);
}

int setenv(const char *name, const char *value, int overwrite)
{
    watch("setenv", name);
    int (*real)(const char *, const char *, int) = (int (*)(const char *, const char *, int))dlsym(RTLD_NEXT, "setenv");
    return real(name, value, overwrite);
}

int unsetenv(const char *name)
{
    watch("unsetenv", name);
    int (*real)(const char *) = (int (*)(const char *))dlsym(RTLD_NEXT, "unsetenv");
    return real(name);
}

int putenv(char *string)
{
    watch("putenv", string);
    int (*real)(char *) = (int (*)(char *))dlsym(RTLD_NEXT, "putenv");
    return real(string);
}
