#include "writers/ops_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "state/comm_registry.h"
#include "base/config.h"
#include "base/log.h"
#include "nccl/nccl_ops.h"
#include "writers/ops_bound.h"
#include "writers/ops_file_format.h"
#include "base/out_file.h"
#include "writers/output.h"

/* Names of datatypes up to this ncclDataType_t go into the header. */
#define NDTYPES 12
#define BUFFERED 256  /* records: 22 KiB, a write every 256 timed ops */

static int fd = -1;
static bool failed;
static uint64_t capacity, written, lost;
static struct tap_ops_record buffer[BUFFERED];
static unsigned nbuffered;
static atomic_flag error_said = ATOMIC_FLAG_INIT;

bool tap_ops_file_enabled(void)
{
    return tap_config.ops_max_mb > 0;
}

static bool write_at(const void *p, size_t n, off_t at)
{
    const char *c = p;
    while (n) {
        ssize_t w = pwrite(fd, c, n, at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        c += w;
        n -= (size_t)w;
        at += w;
    }
    return true;
}

static void say_error(const char *what)
{
    TAP_LOG_ONCE(error_said, "cannot %s the per-op file in %s (%s): records are dropped and counted",
                 what, tap_config.dir, strerror(errno));
}

static atomic_flag no_room_said = ATOMIC_FLAG_INIT;

static void say_no_room(void)
{
    TAP_LOG_ONCE(no_room_said, "the filesystem of %s is almost full: per-op records are dropped and counted, "
                 "to keep room for the rank file", tap_config.dir);
}

/* The header, with the names the records' op and dtype index. */
static bool write_header(bool names)
{
    char h[TAP_OPS_HEADER_BYTES];
    memset(h, 0, sizeof h);
    struct tap_ops_header *hd = (struct tap_ops_header *)(void *)h;
    memcpy(hd->magic, TAP_OPS_MAGIC, sizeof hd->magic);
    hd->byte_order = TAP_OPS_BYTE_ORDER;
    hd->version = TAP_OPS_VERSION;
    hd->record_bytes = sizeof(struct tap_ops_record);
    hd->capacity = capacity;
    hd->written = written;
    hd->lost = lost;
    if (!names)
        return write_at(h, offsetof(struct tap_ops_header, nops), 0);
    hd->nops = TAP_OP_COUNT;
    hd->ndtypes = NDTYPES;
    char *p = hd->names, *end = h + sizeof h;
    for (int i = 0; i < TAP_OP_COUNT + NDTYPES; i++) {
        char buf[32];
        const char *s = i < TAP_OP_COUNT ? tap_op_name((enum tap_op)i)
                                         : tap_dtype_name(i - TAP_OP_COUNT, buf, sizeof buf);
        size_t n = strlen(s) + 1;
        if (p + n > end)
            break;
        memcpy(p, s, n);
        p += n;
    }
    return write_at(h, sizeof h, 0);
}

static bool open_file(void)
{
    if (fd >= 0 || failed)
        return fd >= 0;
    char name[TAP_OUT_NAME_MAX];
    tap_output_name(name, sizeof name, ".ops");
    capacity = tap_ops_max_bytes() / sizeof(struct tap_ops_record);
    int dir = tap_output_dir();
    fd = dir < 0 ? -1 : tap_out_file_create(dir, name, TAP_OUT_FILE_MODE);
    /* A ring is written in place: pwrite(2) on a file opened O_APPEND
     * would append on Linux whatever the offset. */
    if (fd >= 0) {
        int flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_APPEND) < 0) {
            close(fd);
            fd = -1;
        }
    }
    if (dir >= 0 && (fd < 0 || !write_header(true))) { /* without the directory: tried again later */
        say_error(fd < 0 ? "create" : "write");
        if (fd >= 0)
            close(fd);
        fd = -1;
        failed = true;
    }
    return fd >= 0;
}

void tap_ops_file_flush(void)
{
    if (!nbuffered)
        return;
    unsigned n = nbuffered;
    nbuffered = 0;
    if (!open_file()) {
        lost += n;
        return;
    }
    /* The ring's slots from written % capacity on, wrapping once at most
     * per part (BUFFERED is far below any capacity). */
    unsigned done = 0;
    if (written < capacity && !tap_output_has_room((uint64_t)n * sizeof buffer[0])) {
        say_no_room();
        lost += n;
        return;
    }
    while (done < n) {
        uint64_t slot = (written + done) % capacity;
        uint64_t room = capacity - slot;
        unsigned part = n - done < room ? n - done : (unsigned)room;
        off_t at = (off_t)(TAP_OPS_HEADER_BYTES + slot * sizeof(struct tap_ops_record));
        if (!write_at(&buffer[done], part * sizeof buffer[0], at)) {
            say_error("write");
            lost += n - done;
            n = done;
            break;
        }
        done += part;
    }
    written += n;
    if (!write_header(false))
        say_error("write");
}

void tap_ops_file_write(const struct tap_completion *c)
{
    if (!tap_ops_file_enabled())
        return;
    if (failed) {
        lost++;
        return;
    }
    const struct tap_op_rec *op = c->op;
    buffer[nbuffered++] = (struct tap_ops_record){
        .comm = op->comm->id, .seq = op->seq, .count = op->count, .bytes = op->bytes,
        .group = op->group_id, .stream = (uint64_t)(uintptr_t)op->stream,
        .enqueue_ns = op->enqueue_ns, .start_ns = c->start_ns, .end_ns = c->end_ns,
        .rank = op->comm->rank, .peer = op->peer, .tid = op->tid,
        .group_ops = c->group_ops > UINT16_MAX ? UINT16_MAX : (uint16_t)c->group_ops,
        .op = op->op, .dtype = op->dtype >= 0 && op->dtype < 255 ? (uint8_t)op->dtype : 255,
        .replay = tap_op_replay(op),
        .flags = (c->stamped ? TAP_OPS_STAMPED : 0) | (c->stamped && c->start_at_call ? TAP_OPS_START_AT_CALL : 0) |
                 (op->flags & TAP_OPF_JOINED ? TAP_OPS_JOINED : 0),
        .start_span_ns = c->start_span_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)c->start_span_ns,
        .end_span_ns = c->end_span_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)c->end_span_ns,
        .redop = op->redop,
        .user_tag = tap_op_user_tag(op),
    };
    if (nbuffered == BUFFERED)
        tap_ops_file_flush();
}

uint64_t tap_ops_file_dropped(void)
{
    return (written > capacity ? written - capacity : 0) + lost;
}

void tap_ops_file_reset(void)
{
    if (fd >= 0)
        close(fd);  /* the child's copy; the parent's stays open */
    fd = -1;
    failed = false;
    written = lost = 0;
    nbuffered = 0;
}
