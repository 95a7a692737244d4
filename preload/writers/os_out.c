#include "writers/os_out.h"

#include <stdint.h>
#include <string.h>

#include "base/decimal.h"
#include "base/json_writer.h"

/* Up to 16,384 intervals of 5 numbers each are written every interval:
 * one fwrite each, without printf. */
static void put_interval(FILE *f, const struct tap_os_off *o)
{
    char buf[5 * (TAP_DECIMAL_MAX + 2) + 2], *p = buf;
    const uint64_t v[5] = { o->tid, o->cpu, o->out_ns, o->in_ns, o->preempted };
    *p++ = '[';
    for (int i = 0; i < 5; i++) {
        char num[TAP_DECIMAL_MAX], *start = tap_decimal(v[i], num + sizeof num);
        size_t n = (size_t)(num + sizeof num - start);
        if (i) {
            *p++ = ',';
            *p++ = ' ';
        }
        memcpy(p, start, n);
        p += n;
    }
    *p++ = ']';
    fwrite(buf, 1, (size_t)(p - buf), f);
}

void tap_os_write_json(FILE *f, const struct tap_os_view *os)
{
    if (!os)
        return;
    fprintf(f, "  \"os\": {\"source\": \"perf\", \"mode\": \"%s\", \"note\": ", os->mode);
    json_string(f, os->note);
    fprintf(f, ", \"lost\": %llu, \"dropped\": %llu, \"unfollowed\": %llu,\n    \"threads\": [",
            (unsigned long long)os->lost, (unsigned long long)os->dropped,
            (unsigned long long)os->unfollowed);
    for (unsigned i = 0; i < os->nthreads; i++) {
        const struct tap_os_thread *t = &os->threads[i];
        fprintf(f, "%s{\"tid\": %u, \"comm\": ", i ? ", " : "", t->tid);
        json_string(f, t->comm);
        fprintf(f, ", \"nccl\": %s}", t->nccl ? "true" : "false");
    }
    /* Each time off the CPU: [tid, cpu, out_ns, in_ns, preempted], oldest first. */
    fputs("],\n    \"off\": [", f);
    for (unsigned i = 0; i < os->noff; i++) {
        fputs(i % 4 ? ", " : i ? ",\n     " : "", f);
        put_interval(f, &os->off[(os->first + i) % os->cap]);
    }
    fputs("]},\n", f);
}
