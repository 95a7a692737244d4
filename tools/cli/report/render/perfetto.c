/* `nccltap report --perfetto OUT.json`: the timeline (analyze/timeline.c)
 * as Chrome trace-event JSON ("Trace Event Format", the JSON Object
 * Format), which ui.perfetto.dev and chrome://tracing open. Written as a
 * stream, one event per line: a large run has millions of events, too many
 * to hold as one JSON tree. Times ("ts", "dur") are microseconds with
 * three decimals, printed from integer nanoseconds, so nothing is lost to
 * floating point. */
#include "format.h"
#include "render.h"
#include "timeline.h"
#include "util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* A JSON string. Task and handler names come from the kernel and may hold
 * any byte: bytes outside printable ASCII become "?", so that the file is
 * always valid JSON (and UTF-8). */
static void esc(FILE *out, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20 || *c >= 0x7f)
            fputc('?', out);
        else
            fputc(*c, out);
    }
}

static void str(FILE *out, const char *s)
{
    fputc('"', out);
    esc(out, s);
    fputc('"', out);
}

static void us(FILE *out, const char *key, int64_t ns)
{
    fprintf(out, ",\"%s\":%" PRId64 ".%03d", key, ns / 1000, (int)(ns % 1000));
}

/* A track's name, as a JSON string: "host:pid rank 0,1" for a rank's
 * process (its ranks, as many as fit in 64 characters), "stream 0x..",
 * "COMM TID" or "thread TID", "HOST CPUs (kernel)", "CPU N", "CPU N IRQ". */
static void track_name(const struct tl_track *k, FILE *out)
{
    fputc('"', out);
    switch (k->kind) {
    case TL_TRACK_RANK: {
        const struct rank_file *f = k->file;
        esc(out, k->host);
        fprintf(out, ":%lld rank ", f->pid);
        if (!f->nranks)
            fputc('?', out);
        int len = 0;
        for (size_t i = 0; i < f->nranks && len + 12 < 64; i++) {
            int n = fprintf(out, "%s%d", i ? "," : "", f->ranks[i]);
            len += n > 0 ? n : 0;
        }
        break;
    }
    case TL_TRACK_STREAM:
        fprintf(out, "stream 0x%" PRIx64, k->stream);
        break;
    case TL_TRACK_THREAD:
        if (k->comm) {
            esc(out, k->comm);
            fprintf(out, " %" PRIu32, k->thread);
        } else {
            fprintf(out, "thread %" PRIu32, k->thread);
        }
        break;
    case TL_TRACK_CALLS:
        fputs("calls (thread unknown)", out);
        break;
    case TL_TRACK_HOST:
        esc(out, k->host);
        fputs(" CPUs (kernel)", out);
        break;
    case TL_TRACK_CPU:
        fprintf(out, "CPU %" PRIu32, k->cpu);
        break;
    case TL_TRACK_CPU_IRQ:
        fprintf(out, "CPU %" PRIu32 " IRQ", k->cpu);
        break;
    }
    fputc('"', out);
}

static void track_metadata(const struct tl_track *k, bool first, FILE *out)
{
    const char *what = k->tid ? "thread" : "process";
    fprintf(out, "%s{\"ph\":\"M\",\"name\":\"%s_name\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
            ",\"args\":{\"name\":", first ? "" : ",\n", what, k->pid, k->tid);
    track_name(k, out);
    fprintf(out, "}},\n{\"ph\":\"M\",\"name\":\"%s_sort_index\",\"pid\":%" PRIu32 ",\"tid\":%"
            PRIu32 ",\"args\":{\"sort_index\":%d}}", what, k->pid, k->tid, k->sort);
}

static const char *category(const struct tl_event *e)
{
    switch (e->what) {
    case TL_GROUP: return "group";
    case TL_OP: return "op";
    case TL_OFFCPU: return "offcpu";
    case TL_CPU_RUN: return "sched";
    case TL_IRQ: return "irq";
    case TL_ENQUEUE: return "enqueue";
    case TL_FLOW: return e->p2p ? "p2p" : "collective";
    }
    return "";
}

/* "callsite": "op_issue in ops.c:96 [nccltap-bench]", its innermost frame
 * as the text report names it, and "callsite_callers" the outer ones. */
static void callsite_arg(const struct callsite *s, FILE *out)
{
    for (size_t k = 0; k < s->nframes; k++) {
        const struct site_frame *f = &s->frames[k];
        char where[1024];
        if (f->file[0])
            snprintf(where, sizeof where, "%s in %s:%d [%s]", f->function, path_base(f->file), f->line,
                     f->library);
        else
            snprintf(where, sizeof where, "%s [%s]", f->function, f->library);
        fputs(k == 0 ? ",\"callsite\":" : k == 1 ? ",\"callsite_callers\":[" : ",", out);
        str(out, where);
    }
    if (s->nframes > 1)
        fputc(']', out);
}

static void op_args(const struct report *r, const struct tl_event *e, FILE *out)
{
    const struct op_event *o = e->op;
    fprintf(out, "\"comm\":\"%016" PRIx64 "\",\"seq\":%" PRIu64 ",\"rank\":%d,\"bytes\":%" PRIu64
            ",\"dtype\":", o->comm, o->seq, o->rank, o->bytes);
    str(out, report_name(r, o->dtype));
    if (op_replay(o))  /* the replay-th execution of the call seq captured into a CUDA graph */
        fprintf(out, ",\"replay\":%" PRIu64, op_replay(o));
    fprintf(out, ",\"stream\":\"0x%" PRIx64 "\"", e->file->streams[o->stream]);
    if (o->flags & OP_STAMPED) /* from marks: each end within its span */
        fprintf(out, ",\"stamped\":true,\"start_span_us\":%u,\"end_span_us\":%u", (unsigned)o->start_span_us,
                (unsigned)o->end_span_us);
    if (o->peer >= 0)
        fprintf(out, ",\"peer\":%d", o->peer);
    if (op_group(o))
        fprintf(out, ",\"group\":%" PRIu64 ",\"group_ops\":%u", op_group(o), (unsigned)o->group_ops);
    else if (e->what == TL_OP && e->busbw_gbs > 0)
        fprintf(out, ",\"busbw_gbs\":%.3f", e->busbw_gbs);
    uint64_t tag = rank_file_tag(e->file, o->comm, o->rank, o->seq);
    if (tag)  /* NCCL 2.31's userProfilerTag of the call */
        fprintf(out, json_exact_integer(tag) ? ",\"tag\":%" PRIu64 : ",\"tag\":\"%" PRIu64 "\"", tag);
    if (e->site && e->site->nframes)
        callsite_arg(e->site, out);
}

static void event(const struct report *r, const struct tl_event *e, FILE *out)
{
    fprintf(out, ",\n{\"ph\":\"%c\",\"cat\":\"%s\",\"name\":", e->ph, category(e));
    str(out, e->name);
    fprintf(out, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32, e->pid, e->tid);
    us(out, "ts", e->ts_ns);
    if (e->ph == 'X')
        us(out, "dur", e->dur_ns);
    if (e->ph == 'i')
        fputs(",\"s\":\"t\"", out);  /* on its thread's track */
    if (e->what == TL_FLOW) {
        /* Each end binds to the op's slice that encloses it. */
        fprintf(out, ",\"id\":%" PRIu64 ",\"bp\":\"e\"}", e->flow_id);
        return;
    }
    fputs(",\"args\":{", out);
    switch (e->what) {
    case TL_GROUP:
        fprintf(out, "\"group\":%" PRIu64 ",\"ops\":%u", op_group(e->op), (unsigned)e->op->group_ops);
        break;
    case TL_OP:
    case TL_ENQUEUE:
        op_args(r, e, out);
        break;
    case TL_OFFCPU:
        if (e->detail) {
            fputs("\"preempted_by\":", out);
            str(out, e->detail);
        }
        break;
    case TL_CPU_RUN:
        fprintf(out, "\"tid\":%" PRId64, e->number);
        break;
    case TL_IRQ:
        fprintf(out, "\"irq\":%" PRId64, e->number);
        break;
    case TL_FLOW:
        break;
    }
    fputs("}}", out);
}

int report_write_perfetto(const struct report *r, const struct timeline *t, FILE *out)
{
    fprintf(out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"nccltap\","
            "\"origin_monotonic_ns\":%" PRId64 "},\n\"traceEvents\":[\n", t->origin_ns);
    for (size_t i = 0; i < t->ntracks; i++)
        track_metadata(&t->tracks[i], i == 0, out);
    for (size_t i = 0; i < t->nevents; i++)
        event(r, &t->events[i], out);
    fputs("\n]}\n", out);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
