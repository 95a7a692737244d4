/* libFuzzer target: the report's trace reader on crafted CTF bytes, as
 * `nccltap report TRACE` runs it: libbabeltrace2 in a child process
 * (load/trace_child.c), the events back through the pipe (trace_wire.c),
 * the trace made into documents (trace_assemble.c). The first byte picks
 * the stream the rest of the bytes become: even, the user-space stream of
 * a session (beside its metadata); odd, a kernel stream (beside the
 * kernel's metadata and the session's own user-space stream, so that its
 * events are assembled). Whatever the bytes, the report does not crash,
 * hang or leak: an abort or a crash of libbabeltrace2 (it asserts on some
 * packet headers) ends the child, not the report. The child's own
 * coverage does not reach the fuzzer (it is another process): the
 * mutations are blind to libbabeltrace2, not to what the report makes of
 * what it sends. */
#include "fuzz_scratch.h"
#include "load.h"
#include "util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


static void mkdirs(const char *path)
{
    char *p = xstrdup(path);
    for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            abort();
        *s = '/';
    }
    if (mkdir(p, 0700) != 0 && errno != EEXIST)
        abort();
    free(p);
}

static void write_file(const char *dir, const char *name, const uint8_t *p, size_t n)
{
    char *path = xasprintf("%s/%s", dir, name);
    FILE *out = fopen(path, "wb");
    if (!out || (n && fwrite(p, n, 1, out) != 1) || fclose(out) != 0)
        abort();
    free(path);
}

/* testdata/ctf/NAME into dir. */
static void copy_fixture(const char *name, const char *dir, const char *as)
{
    char *path = xasprintf("%s/%s", FUZZ_CTF_DIR, name);
    FILE *in = fopen(path, "rb");
    if (!in)
        abort();
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, in);
    fclose(in);
    write_file(dir, as, buf, n);
    free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    const char *session = fuzz_scratch("trace");
    char *ust = xasprintf("%s/ust/uid/0/64-bit", session), *kernel = xasprintf("%s/kernel", session);
    mkdirs(ust);
    copy_fixture("ust/metadata", ust, "metadata");
    for (const char *const *f = (const char *const[]){ "metadata", "channel0_0", NULL }; *f; f++) {
        char *stale = xasprintf("%s/%s", kernel, *f);
        unlink(stale);
        free(stale);
    }
    rmdir(kernel);
    if (data[0] % 2 == 0) {
        write_file(ust, "nccltap_0", data + 1, size - 1);
    } else {
        mkdirs(kernel);
        copy_fixture("ust/nccltap_0", ust, "nccltap_0");
        copy_fixture("kernel/metadata", kernel, "metadata");
        write_file(kernel, "channel0_0", data + 1, size - 1);
    }
    struct report r;
    if (report_load_trace(session, &r) == 0)
        report_free(&r);
    free(ust);
    free(kernel);
    return 0;
}
