#include "writers/os_out.h"

#include "base/json_writer.h"

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
        const struct tap_os_off *o = &os->off[(os->first + i) % os->cap];
        fprintf(f, "%s[%u, %u, %llu, %llu, %u]", i % 4 ? ", " : i ? ",\n     " : "", o->tid,
                (unsigned)o->cpu, (unsigned long long)o->out_ns, (unsigned long long)o->in_ns,
                (unsigned)o->preempted);
    }
    fputs("]},\n", f);
}
