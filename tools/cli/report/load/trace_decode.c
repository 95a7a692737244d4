#include "trace_decode.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    enum tev_kind kind;
} kinds[] = {
    { "nccltap:comm_init", TEV_COMM_INIT },
    { "nccltap:comm_destroy", TEV_COMM_DESTROY },
    { "nccltap:op_enqueue", TEV_OP_ENQUEUE },
    { "nccltap:op_complete", TEV_OP_COMPLETE },
    { "nccltap:group_end", TEV_GROUP_END },
    { "nccltap:op_captured", TEV_OP_CAPTURED },
    { "nccltap:hang", TEV_HANG },
    { "nccltap:callsite", TEV_CALLSITE },
    { "nccltap:module", TEV_MODULE },
    { "nccltap:python_frame", TEV_PYTHON_FRAME },
    { "nccltap:python_unread", TEV_PYTHON_UNREAD },
    { "nccltap:os_offcpu", TEV_OS_OFFCPU },
    { "nccltap:step", TEV_STEP },
    { "nccltap:entry_point", TEV_ENTRY_POINT },
    { "nccltap:process_end", TEV_PROCESS_END },
    { "sched_switch", TEV_SCHED_SWITCH },
    { "sched_wakeup", TEV_SCHED_WAKEUP },
    { "sched_process_fork", TEV_PROCESS_FORK },
    { "lttng_statedump_process_state", TEV_STATEDUMP_PROCESS },
    { "irq_handler_entry", TEV_IRQ_ENTRY },
    { "irq_handler_exit", TEV_IRQ_EXIT },
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

/* The payload of one event, and its name for messages. */
struct payload {
    const bt_field *fields;
    const char *event;
};

/* A missing field is said once per event and field, not once per event. */
static void missing(const char *event, const char *field)
{
    static char said[64][96];
    static size_t nsaid;
    char key[96];
    snprintf(key, sizeof key, "%s.%s", event, field);
    for (size_t i = 0; i < nsaid; i++)
        if (strcmp(said[i], key) == 0)
            return;
    if (nsaid < sizeof said / sizeof said[0])
        memcpy(said[nsaid++], key, sizeof key);
    msg("warning: %s events have no usable field \"%s\" (another nccltap version?): "
        "taken as 0", event, field);
}

static const bt_field *member(const bt_field *s, const char *name)
{
    if (!s || bt_field_get_class_type(s) != BT_FIELD_CLASS_TYPE_STRUCTURE)
        return NULL;
    return bt_field_structure_borrow_member_field_by_name_const(s, name);
}

/* Any integer or enumeration, signed or not, as 64 bits. */
static bool int_value(const bt_field *f, uint64_t *u, int64_t *s)
{
    if (!f)
        return false;
    bt_field_class_type t = bt_field_get_class_type(f);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
        *u = bt_field_integer_unsigned_get_value(f);
        *s = (int64_t)*u;
        return true;
    }
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
        *s = bt_field_integer_signed_get_value(f);
        *u = (uint64_t)*s;
        return true;
    }
    return false;
}

static uint64_t get_u64(const struct payload *p, const char *name)
{
    uint64_t u = 0;
    int64_t s;
    if (!int_value(member(p->fields, name), &u, &s))
        missing(p->event, name);
    return u;
}

/* A field later versions added: absent (an older trace) is 0, unsaid. */
static uint64_t get_u64_since(const struct payload *p, const char *name)
{
    uint64_t u = 0;
    int64_t s;
    const bt_field *f = member(p->fields, name);
    if (f && !int_value(f, &u, &s))
        missing(p->event, name);
    return u;
}

static int64_t get_i64(const struct payload *p, const char *name)
{
    uint64_t u;
    int64_t s = 0;
    if (!int_value(member(p->fields, name), &u, &s))
        missing(p->event, name);
    return s;
}

static double get_real(const struct payload *p, const char *name)
{
    const bt_field *f = member(p->fields, name);
    bt_field_class_type t = f ? bt_field_get_class_type(f) : BT_FIELD_CLASS_TYPE_STRING;
    if (t == BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL)
        return bt_field_real_double_precision_get_value(f);
    if (t == BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL)
        return bt_field_real_single_precision_get_value(f);
    missing(p->event, name);
    return 0.0;
}

static const char *get_str(const struct payload *p, const char *name)
{
    const bt_field *f = member(p->fields, name);
    if (f && bt_field_get_class_type(f) == BT_FIELD_CLASS_TYPE_STRING)
        return bt_field_string_get_value(f);
    missing(p->event, name);
    return "";
}

/* The label of an enumeration's value, and the value; "" when no label
 * maps it (a datatype newer than the provider's enumeration). */
static const char *get_enum(const struct payload *p, const char *name, int64_t *value)
{
    const bt_field *f = member(p->fields, name);
    uint64_t u;
    *value = 0;
    if (!int_value(f, &u, value)) {
        missing(p->event, name);
        return "";
    }
    bt_field_class_enumeration_mapping_label_array labels = NULL;
    uint64_t n = 0;
    bt_field_class_type t = bt_field_get_class_type(f);
    if (t == BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION)
        bt_field_enumeration_signed_get_mapping_labels(f, &labels, &n);
    else if (t == BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION)
        bt_field_enumeration_unsigned_get_mapping_labels(f, &labels, &n);
    return n >= 1 ? labels[0] : "";
}

/* The trace's environment names the host the tracer ran on. */
/* The trace's "hostname" (environment), "" when unknown. */
static const char *trace_host(const bt_trace *trace)
{
    const bt_value *v =
        trace ? bt_trace_borrow_environment_entry_value_by_name_const(trace, "hostname") : NULL;
    return v && bt_value_get_type(v) == BT_VALUE_TYPE_STRING ? bt_value_string_get(v) : "";
}

static const char *hostname(const bt_event *event)
{
    const bt_stream *stream = bt_event_borrow_stream_const(event);
    return trace_host(stream ? bt_stream_borrow_trace_const(stream) : NULL);
}

/* The event's time on the clock itself, in ns: LTTng's "monotonic" clock
 * counts CLOCK_MONOTONIC, the clock op_complete's GPU times are in. (Not
 * from the clock's origin: that adds the offset to the epoch.) */
static uint64_t timestamp(const bt_message *msg)
{
    const bt_clock_class *cc = bt_message_event_borrow_stream_class_default_clock_class_const(msg);
    if (!cc)
        return 0;
    uint64_t cycles = bt_clock_snapshot_get_value(bt_message_event_borrow_default_clock_snapshot_const(msg));
    uint64_t hz = bt_clock_class_get_frequency(cc);
    if (hz == 1000000000 || hz == 0)
        return cycles;
    return (uint64_t)((long double)cycles * 1e9L / (long double)hz);
}

/* The CPU of a kernel event: lttng-modules writes one stream per CPU and
 * puts the CPU in each packet's context. */
static uint32_t cpu_of(const bt_event *event)
{
    const bt_packet *packet = bt_event_borrow_packet_const(event);
    const bt_field *ctx = packet ? bt_packet_borrow_context_field_const(packet) : NULL;
    uint64_t u = 0;
    int64_t s;
    if (!int_value(member(ctx, "cpu_id"), &u, &s))
        return 0;
    return (uint32_t)u;
}

/* An array of integers of the callsite event, into out[0..max); returns
 * how many. "frames" is needed; "python" is not said missing (traces
 * written before nccltap traced Python frames have none). */
static size_t get_array(const struct payload *p, const char *name, bool needed, uint64_t *out, size_t max)
{
    const bt_field *f = member(p->fields, name);
    bt_field_class_type t = f ? bt_field_get_class_type(f) : BT_FIELD_CLASS_TYPE_STRING;
    if (!bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY)) {
        if (needed)
            missing(p->event, name);
        return 0;
    }
    uint64_t n = bt_field_array_get_length(f);
    size_t got = 0;
    for (uint64_t i = 0; i < n && got < max; i++) {
        int64_t s;
        if (!int_value(bt_field_array_borrow_element_field_by_index_const(f, i), &out[got], &s))
            break;
        got++;
    }
    return got;
}

/* The callsite event's frames and Python frames. Valid until the next
 * event. */
static void get_frames(const struct payload *p, struct tev *e)
{
    static uint64_t frames[64], python[64];
    e->nframes = get_array(p, "frames", true, frames, sizeof frames / sizeof frames[0]);
    e->frames = frames;
    e->npython = get_array(p, "python", false, python, sizeof python / sizeof python[0]);
    e->python = python;
}

static void decode_payload(const struct payload *p, struct tev *e)
{
    bool has_comm = e->kind != TEV_GROUP_END && e->kind != TEV_CALLSITE && e->kind != TEV_MODULE &&
                    e->kind != TEV_OS_OFFCPU && e->kind != TEV_PYTHON_FRAME && e->kind != TEV_PYTHON_UNREAD &&
                    e->kind != TEV_STEP && e->kind != TEV_ENTRY_POINT && e->kind != TEV_PROCESS_END;
    e->comm_id = has_comm ? get_u64(p, "comm_id") : 0;
    switch (e->kind) {
    case TEV_COMM_INIT:
        e->rank = get_i64(p, "rank");
        e->name = get_str(p, "name");
        e->nranks = get_i64(p, "nranks");
        e->device = get_i64(p, "device");
        e->gpu_uuid = get_str(p, "gpu_uuid");
        e->nccl_version = get_i64(p, "nccl_version");
        e->parent_id = get_u64(p, "parent_id");
        e->origin = get_str(p, "origin");
        e->init_ns = get_u64(p, "init_ns");
        break;
    case TEV_COMM_DESTROY: {
        int64_t how;
        e->rank = get_i64(p, "rank");
        e->how = get_enum(p, "how", &how);
        break;
    }
    case TEV_OP_ENQUEUE:
    case TEV_OP_CAPTURED:
        e->rank = get_i64(p, "rank");
        e->seq = get_u64(p, "seq");
        e->op = get_enum(p, "op", &e->op_value);
        e->bytes = get_u64(p, "bytes");
        if (e->kind == TEV_OP_CAPTURED)
            break;
        e->dtype = get_enum(p, "dtype", &e->dtype_value);
        e->count = get_u64(p, "count");
        e->peer = get_i64(p, "peer");
        e->group_id = get_u64(p, "group_id");
        e->stream = get_u64(p, "stream");
        e->site = get_u64(p, "site");
        e->user_tag = get_u64_since(p, "user_tag");
        e->marked = get_u64_since(p, "marked") != 0;
        break;
    case TEV_OP_COMPLETE:
        e->rank = get_i64(p, "rank");
        e->seq = get_u64(p, "seq");
        e->start_ns = get_u64(p, "start_ns");
        e->end_ns = get_u64(p, "end_ns");
        e->duration_ns = get_u64(p, "duration_ns");
        e->algbw_gbs = get_real(p, "algbw_gbs");
        e->busbw_gbs = get_real(p, "busbw_gbs");
        e->group_ops = get_u64(p, "group_ops");
        e->replay = get_u64_since(p, "replay");
        uint64_t stamped = get_u64_since(p, "stamped");
        e->stamped = stamped != 0;
        e->start_at_call = stamped == 2;
        e->start_span_ns = get_u64_since(p, "start_span_ns");
        e->end_span_ns = get_u64_since(p, "end_span_ns");
        break;
    case TEV_HANG:
        e->rank = get_i64(p, "rank");
        e->nranks = get_i64(p, "nranks");
        e->seq = get_u64(p, "seq");
        e->op = get_enum(p, "op", &e->op_value);
        e->bytes = get_u64(p, "bytes");
        e->started = get_u64(p, "started") != 0;
        e->issued = get_u64(p, "issued");
        e->done_seq = get_u64(p, "done_seq");
        e->pending_ns = get_u64(p, "pending_ns");
        e->site = get_u64(p, "site");
        e->untimed = get_u64_since(p, "untimed") != 0;
        break;
    case TEV_CALLSITE:
        e->site = get_u64(p, "site");
        get_frames(p, e);
        break;
    case TEV_MODULE:
        e->path = get_str(p, "path");
        e->base = get_u64(p, "base");
        e->start = get_u64(p, "start");
        e->end = get_u64(p, "end");
        e->build_id = get_str(p, "build_id");
        break;
    case TEV_PYTHON_FRAME:
        e->py_id = get_u64(p, "id");
        e->py_file = get_str(p, "file");
        e->py_line = get_i64(p, "line");
        e->py_function = get_str(p, "function");
        break;
    case TEV_PYTHON_UNREAD:
    case TEV_PROCESS_END:
        e->calls = get_u64(p, "calls");
        break;
    case TEV_ENTRY_POINT:
        e->name = get_str(p, "name");
        e->result = get_i64(p, "result");
        break;
    case TEV_STEP:
        e->calls = get_u64(p, "step");
        e->out_ns = get_u64(p, "time_ns");
        break;
    case TEV_OS_OFFCPU:
        e->tid = get_i64(p, "tid");
        e->comm = get_str(p, "comm");
        e->off_cpu = get_i64(p, "cpu");
        e->out_ns = get_u64(p, "out_ns");
        e->in_ns = get_u64(p, "in_ns");
        e->preempted = get_u64(p, "preempted") != 0;
        break;
    case TEV_GROUP_END:
        e->group_id = get_u64(p, "group_id");
        e->ops = get_u64(p, "ops");
        e->timed = get_u64(p, "timed") != 0;
        e->simulated = get_u64(p, "simulated") != 0;
        e->failed = get_u64(p, "failed") != 0;
        e->marked = get_u64_since(p, "marked") != 0;
        break;
    default:
        break;
    }
}

/* lttng-modules' fields (include/instrumentation/events/sched.h, irq.h,
 * lttng-statedump.h). */
static void decode_kernel(const struct payload *p, struct tev *e)
{
    switch (e->kind) {
    case TEV_SCHED_SWITCH:
        e->prev_comm = get_str(p, "prev_comm");
        e->prev_tid = get_i64(p, "prev_tid");
        e->prev_state = get_i64(p, "prev_state");
        e->next_comm = get_str(p, "next_comm");
        e->next_tid = get_i64(p, "next_tid");
        break;
    case TEV_SCHED_WAKEUP:
        e->comm = get_str(p, "comm");
        e->tid = get_i64(p, "tid");
        e->target_cpu = get_i64(p, "target_cpu");
        break;
    case TEV_PROCESS_FORK:
        e->comm = get_str(p, "child_comm");
        e->tid = get_i64(p, "child_tid");
        e->pid = get_i64(p, "child_pid");
        break;
    case TEV_STATEDUMP_PROCESS:
        e->comm = get_str(p, "name");
        e->tid = get_i64(p, "tid");
        e->pid = get_i64(p, "pid");
        break;
    case TEV_IRQ_ENTRY:
        e->irq = get_i64(p, "irq");
        e->irq_name = get_str(p, "name");
        break;
    case TEV_IRQ_EXIT:
        e->irq = get_i64(p, "irq");
        break;
    default:
        break;
    }
}

void tev_declared(const bt_message *msg, tev_fn fn, void *data)
{
    static const char *const absent_matters[] = { "nccltap:op_complete", "nccltap:process_end" };
    const bt_stream *stream = bt_message_stream_beginning_borrow_stream_const(msg);
    const bt_stream_class *sc = bt_stream_borrow_class_const(stream);
    uint64_t n = bt_stream_class_get_event_class_count(sc);
    for (uint64_t i = 0; i < n; i++) {
        const char *name = bt_event_class_get_name(bt_stream_class_borrow_event_class_by_index_const(sc, i));
        for (size_t k = 0; name && k < sizeof absent_matters / sizeof absent_matters[0]; k++) {
            if (strcmp(name, absent_matters[k]) != 0)
                continue;
            static const char empty[] = "";
            struct tev e;
            memset(&e, 0, sizeof e);
            e.gpu_uuid = e.origin = e.how = e.op = e.dtype = empty;
            e.prev_comm = e.next_comm = e.comm = e.irq_name = e.path = e.build_id = empty;
            e.py_file = e.py_function = empty;
            e.kind = TEV_DECLARED;
            e.name = name + strlen("nccltap:");
            e.host = trace_host(bt_stream_borrow_trace_const(stream));
            e.vpid = e.vtid = -1;
            fn(&e, data);
        }
    }
}

bool tev_decode(const bt_message *msg, struct tev *e)
{
    const bt_event *event = bt_message_event_borrow_event_const(msg);
    const char *name = bt_event_class_get_name(bt_event_borrow_class_const(event));
    if (!name)
        return false;
    size_t k = 0;
    while (k < NKINDS && strcmp(kinds[k].name, name) != 0)
        k++;
    if (k == NKINDS)
        return false;  /* stats and events this report does not use */

    static const char empty[] = "";
    memset(e, 0, sizeof *e);
    e->name = e->gpu_uuid = e->origin = e->how = e->op = e->dtype = empty;
    e->prev_comm = e->next_comm = e->comm = e->irq_name = e->path = e->build_id = empty;
    e->py_file = e->py_function = empty;
    e->kind = kinds[k].kind;
    e->host = hostname(event);
    e->ts_ns = timestamp(msg);
    struct payload p = { bt_event_borrow_payload_field_const(event), name };
    if (tev_is_kernel(e->kind)) {
        e->vpid = e->vtid = -1;
        e->cpu = cpu_of(event);
        decode_kernel(&p, e);
        return true;
    }
    uint64_t u;
    const bt_field *ctx = bt_event_borrow_common_context_field_const(event);
    if (!int_value(member(ctx, "vpid"), &u, &e->vpid))
        e->vpid = -1;
    if (!int_value(member(ctx, "vtid"), &u, &e->vtid))
        e->vtid = -1;
    decode_payload(&p, e);
    return true;
}
