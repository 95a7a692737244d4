#include "hang_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "comm_registry.h"
#include "config.h"
#include "json_writer.h"
#include "log.h"
#include "nccl_ops.h"
#include "out_file.h"
#include "output.h"
#include "runtime.h"

static atomic_flag error_said = ATOMIC_FLAG_INIT;

static void write_comm(FILE *f, const struct tap_hang_comm *c)
{
    fprintf(f, "{\"comm\": \"%016llx\", \"rank\": %d, \"nranks\": %d, \"issued\": %llu, \"last_done\": ",
            (unsigned long long)c->comm->id, c->comm->rank, c->comm->nranks,
            (unsigned long long)c->issued);
    if (c->done_seq)
        fprintf(f, "%llu", (unsigned long long)(c->done_seq - 1));
    else
        fputs("null", f);
    if (c->pending)
        fprintf(f, ", \"pending\": {\"seq\": %llu, \"op\": \"%s\", \"bytes\": %llu, \"started\": %s, "
                "\"pending_s\": %.3f}", (unsigned long long)c->seq, tap_op_name((enum tap_op)c->op),
                (unsigned long long)c->bytes, c->started ? "true" : "false", (double)c->age_ns / 1e9);
    else
        fputs(", \"pending\": null", f);
    fputc('}', f);
}

static void write_body(FILE *f, const struct tap_hang *h)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    fputs("{\n  \"format\": \"nccltap-hang/1\",\n  \"host\": ", f);
    json_string(f, tap_process.host);
    fprintf(f, ",\n  \"pid\": %d,\n  \"run\": ", tap_process.pid);
    json_string(f, tap_config.run_id);
    fprintf(f, ",\n  \"time_unix_s\": %lld,\n  \"timeout_s\": %u,\n  \"reports\": %u,\n  \"stuck\": ",
            (long long)now.tv_sec, tap_config.hang_timeout_s, h->reports);
    write_comm(f, &h->comms[h->stuck]);
    fputs(",\n  \"comms\": [", f);
    for (unsigned i = 0; i < h->ncomms; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        write_comm(f, &h->comms[i]);
    }
    fputs("\n  ]\n}\n", f);
}

/* One line: what is stuck, and where every communicator stands. */
static void say(const struct tap_hang *h, const char *name)
{
    const struct tap_hang_comm *s = &h->comms[h->stuck];
    char done[512];
    size_t used = 0;
    done[0] = 0;
    for (unsigned i = 0; i < h->ncomms && used + 40 < sizeof done; i++) {
        const struct tap_hang_comm *c = &h->comms[i];
        int n = c->done_seq ? snprintf(done + used, sizeof done - used, "%s%016llx:%llu", i ? " " : "",
                                       (unsigned long long)c->comm->id,
                                       (unsigned long long)(c->done_seq - 1))
                            : snprintf(done + used, sizeof done - used, "%s%016llx:none", i ? " " : "",
                                       (unsigned long long)c->comm->id);
        used += n > 0 ? (size_t)n : 0;
    }
    tap_log("hang: rank %d of comm %016llx (%d ranks) waits %.1f s in %s seq %llu (%llu bytes), "
            "GPU start %s; last completed seq by comm: %s; details in %s/%s",
            s->comm->rank, (unsigned long long)s->comm->id, s->comm->nranks, (double)s->age_ns / 1e9,
            tap_op_name((enum tap_op)s->op), (unsigned long long)s->seq, (unsigned long long)s->bytes,
            s->started ? "completed (it arrived; others may not have)"
                       : "not completed (its GPU never reached the op)",
            done, tap_config.dir, name);
}

void tap_hang_file_write(const struct tap_hang *h)
{
    char name[TAP_OUT_NAME_MAX];
    tap_output_name(name, sizeof name, ".hang.json");
    say(h, name);
    int dir = tap_output_dir();
    if (dir < 0)
        return;
    struct tap_out_file out;
    FILE *f = tap_out_file_begin(&out, dir, name, TAP_OUT_FILE_MODE);
    if (!f) {
        TAP_LOG_ONCE(error_said, "cannot write %s/%s (%s)", tap_config.dir, name, strerror(errno));
        return;
    }
    write_body(f, h);
    if (tap_out_file_commit(&out) != 0)
        TAP_LOG_ONCE(error_said, "cannot write %s/%s (%s)", tap_config.dir, name, strerror(errno));
}
