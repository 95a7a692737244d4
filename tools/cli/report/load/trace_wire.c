#include "trace_wire.h"
#include "util.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The struct's strings, in the order the payload holds them. A string
 * added to struct tev goes here, or the parent would get the child's
 * pointer. */
static const size_t strings[] = {
    offsetof(struct tev, host), offsetof(struct tev, name), offsetof(struct tev, gpu_uuid),
    offsetof(struct tev, origin), offsetof(struct tev, how), offsetof(struct tev, op),
    offsetof(struct tev, dtype), offsetof(struct tev, py_file), offsetof(struct tev, py_function),
    offsetof(struct tev, path), offsetof(struct tev, build_id), offsetof(struct tev, prev_comm),
    offsetof(struct tev, next_comm), offsetof(struct tev, comm), offsetof(struct tev, irq_name),
};
#define NSTRINGS (sizeof strings / sizeof strings[0])

/* Its bools: a byte other than 0 or 1 is no bool, and reading one as such
 * is undefined. */
static const size_t bools[] = {
    offsetof(struct tev, started), offsetof(struct tev, preempted), offsetof(struct tev, timed),
    offsetof(struct tev, simulated), offsetof(struct tev, failed), offsetof(struct tev, stamped),
    offsetof(struct tev, start_at_call), offsetof(struct tev, untimed), offsetof(struct tev, marked),
};

static const char **string_at(struct tev *e, size_t i)
{
    return (const char **)((char *)e + strings[i]);
}

static bool put(FILE *out, const void *p, size_t n)
{
    return n == 0 || fwrite(p, n, 1, out) == 1;
}

bool wire_put_event(FILE *out, const struct tev *e)
{
    struct tev bare = *e;
    const char *s[NSTRINGS];
    uint32_t slen[NSTRINGS];
    size_t len = sizeof bare;
    for (size_t i = 0; i < NSTRINGS; i++) {
        s[i] = *string_at(&bare, i);
        slen[i] = s[i] ? (uint32_t)strnlen(s[i], WIRE_MAX_STRING) : 0;
        len += sizeof slen[i] + slen[i];
        *string_at(&bare, i) = NULL;
    }
    bare.nframes = e->nframes < WIRE_MAX_FRAMES ? e->nframes : WIRE_MAX_FRAMES;
    bare.npython = e->npython < WIRE_MAX_FRAMES ? e->npython : WIRE_MAX_FRAMES;
    bare.frames = bare.python = NULL;
    len += (bare.nframes + bare.npython) * sizeof(uint64_t);
    struct wire_head h = { WIRE_EVENT, (uint32_t)len };
    bool ok = put(out, &h, sizeof h) && put(out, &bare, sizeof bare);
    for (size_t i = 0; ok && i < NSTRINGS; i++)
        ok = put(out, &slen[i], sizeof slen[i]) && put(out, s[i], slen[i]);
    return ok && put(out, e->frames, bare.nframes * sizeof(uint64_t)) &&
           put(out, e->python, bare.npython * sizeof(uint64_t));
}

bool wire_put_end(FILE *out, int rc, const struct trace_stats *stats, const char *error)
{
    uint32_t n = error ? (uint32_t)strnlen(error, WIRE_MAX_LEN / 2) : 0;
    int32_t rc32 = rc;
    struct wire_head h = { WIRE_END, (uint32_t)(sizeof rc32 + sizeof *stats + sizeof n + n) };
    return put(out, &h, sizeof h) && put(out, &rc32, sizeof rc32) && put(out, stats, sizeof *stats) &&
           put(out, &n, sizeof n) && put(out, error, n);
}

/* Takes n bytes from *p (of *left), or false when fewer are left. */
static bool take(const uint8_t **p, size_t *left, void *to, size_t n)
{
    if (n > *left)
        return false;
    memcpy(to, *p, n);
    *p += n;
    *left -= n;
    return true;
}

bool wire_get_event(const uint8_t *p, size_t len, struct wire_event *w)
{
    struct tev *e = &w->e;
    if (!take(&p, &len, e, sizeof *e))
        return false;
    for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++) {
        unsigned char *b = (unsigned char *)e + bools[i];
        *b = *b != 0;
    }
    if ((unsigned)e->kind > TEV_IRQ_EXIT || e->nframes > WIRE_MAX_FRAMES || e->npython > WIRE_MAX_FRAMES)
        return false;
    /* The strings, each with its NUL: at most the payload and a NUL each. */
    if (w->cap < len + NSTRINGS) {
        w->cap = len + NSTRINGS;
        w->strings = xrealloc(w->strings, w->cap);
    }
    size_t at[NSTRINGS], used = 0;
    for (size_t i = 0; i < NSTRINGS; i++) {
        uint32_t n;
        if (!take(&p, &len, &n, sizeof n) || !take(&p, &len, w->strings + used, n))
            return false;
        w->strings[used + n] = '\0';
        at[i] = used;
        used += n + 1;
    }
    for (size_t i = 0; i < NSTRINGS; i++)
        *string_at(e, i) = w->strings + at[i];
    if (!take(&p, &len, w->frames, e->nframes * sizeof(uint64_t)) ||
        !take(&p, &len, w->python, e->npython * sizeof(uint64_t)) || len)
        return false;
    e->frames = w->frames;
    e->python = w->python;
    return true;
}

bool wire_get_end(const uint8_t *p, size_t len, int *rc, struct trace_stats *stats, char **error)
{
    int32_t rc32;
    uint32_t n;
    *error = NULL;
    if (!take(&p, &len, &rc32, sizeof rc32) || !take(&p, &len, stats, sizeof *stats) ||
        !take(&p, &len, &n, sizeof n) || n != len)
        return false;
    *rc = rc32;
    if (n) {
        *error = xmalloc(n + 1);
        memcpy(*error, p, n);
        (*error)[n] = '\0';
    }
    return true;
}

void wire_event_free(struct wire_event *w)
{
    free(w->strings);
    w->strings = NULL;
    w->cap = 0;
}
