/* What the document model owns beyond its structs: the interned strings
 * (an open-addressing hash table) and an arena for small arrays. A run of
 * 4,096 ranks has a few hundred distinct strings and millions of fields
 * naming them; the table keeps one copy of each. */
#include "model.h"
#include "util.h"

#include <search.h>
#include <stdlib.h>
#include <string.h>

struct report_strings {
    char **slots;   /* NULL or an owned string; a power of two of them */
    size_t cap, count;
};

/* FNV-1a: short keys, no adversary to fear (a hostile file only makes
 * its own report slower). */
static uint64_t hash(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

static char **find_slot(struct report_strings *t, const char *s, size_t len)
{
    size_t mask = t->cap - 1;
    for (size_t i = hash(s, len) & mask;; i = (i + 1) & mask) {
        char *e = t->slots[i];
        if (!e || (strncmp(e, s, len) == 0 && e[len] == '\0'))
            return &t->slots[i];
    }
}

static void grow(struct report_strings *t)
{
    struct report_strings bigger = { xcalloc(t->cap * 2, sizeof(char *)), t->cap * 2, t->count };
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i])
            *find_slot(&bigger, t->slots[i], strlen(t->slots[i])) = t->slots[i];
    free(t->slots);
    *t = bigger;
}

const char *report_intern_n(struct report *r, const char *name, size_t len)
{
    len = strnlen(name, len);  /* a C string ends at its first NUL ("\u0000") */
    if (!r->strings) {
        r->strings = xcalloc(1, sizeof *r->strings);
        r->strings->cap = 256;
        r->strings->slots = xcalloc(r->strings->cap, sizeof(char *));
    }
    struct report_strings *t = r->strings;
    char **slot = find_slot(t, name, len);
    if (*slot)
        return *slot;
    char *copy = xmalloc(len + 1);
    memcpy(copy, name, len);
    copy[len] = '\0';
    *slot = copy;
    if (++t->count * 2 > t->cap)  /* at most half full: short probes */
        grow(t);
    return copy;
}

const char *report_intern(struct report *r, const char *name)
{
    return report_intern_n(r, name, strlen(name));
}

uint8_t report_name_index(struct report *r, const char *name)
{
    const char *s = report_intern(r, name);
    for (unsigned i = 0; i < r->nevent_names; i++)
        if (r->event_names[i] == s)
            return (uint8_t)i;
    if (r->nevent_names == 256)
        return 255;
    r->event_names[r->nevent_names] = r->nevent_names == 255 ? report_intern(r, "(other)") : s;
    return (uint8_t)r->nevent_names++;
}

/* ---- arena ---- */

#define CHUNK_BYTES (1u << 20)

struct arena_chunk {
    struct arena_chunk *next;
    size_t used, size;
    _Alignas(max_align_t) unsigned char data[];
};

struct report_arena {
    struct arena_chunk *head;
};

void *report_alloc(struct report *r, size_t n)
{
    if (!r->arena)
        r->arena = xcalloc(1, sizeof *r->arena);
    n = (n + _Alignof(max_align_t) - 1) & ~(size_t)(_Alignof(max_align_t) - 1);
    struct arena_chunk *c = r->arena->head;
    if (!c || c->size - c->used < n) {
        size_t size = n > CHUNK_BYTES ? n : CHUNK_BYTES;
        c = xmalloc(sizeof *c + size);
        *c = (struct arena_chunk){ r->arena->head, 0, size };
        r->arena->head = c;
    }
    void *p = c->data + c->used;
    c->used += n;
    return memset(p, 0, n);
}

void report_model_free(struct report *r)
{
    if (r->strings) {
        for (size_t i = 0; i < r->strings->cap; i++)
            free(r->strings->slots[i]);
        free(r->strings->slots);
        free(r->strings);
        r->strings = NULL;
    }
    if (r->arena) {
        for (struct arena_chunk *c = r->arena->head, *next; c; c = next) {
            next = c->next;
            free(c);
        }
        free(r->arena);
        r->arena = NULL;
    }
}

static int cmp_comm_size(const void *a, const void *b)
{
    const struct comm_size *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

struct comm_size *comm_sizes_of(const struct rank_file *files, size_t nfiles, size_t *n)
{
    size_t total = 0;
    for (size_t i = 0; i < nfiles; i++)
        total += files[i].ncomms;
    struct comm_size *s = xcalloc(total ? total : 1, sizeof *s);
    *n = 0;
    for (size_t i = 0; i < nfiles; i++)
        for (size_t j = 0; j < files[i].ncomms; j++) {
            const struct comm_entry *c = &files[i].comms[j];
            s[(*n)++] = (struct comm_size){ strtoull(c->id, NULL, 16), c->nranks };
        }
    qsort(s, *n, sizeof *s, cmp_comm_size);
    return s;
}

int comm_size_find(const struct comm_size *s, size_t n, uint64_t id, int unknown)
{
    struct comm_size key = { id, 0 };
    const struct comm_size *c = bsearch(&key, s, n, sizeof *s, cmp_comm_size);
    return c ? c->nranks : unknown;
}

struct stream_entry {
    uint64_t handle;
    uint16_t index;
};

static int cmp_stream_entry(const void *a, const void *b)
{
    uint64_t x = ((const struct stream_entry *)a)->handle, y = ((const struct stream_entry *)b)->handle;
    return (x > y) - (x < y);
}

uint16_t rank_file_stream(struct rank_file *f, uint64_t handle)
{
    if (f->nstreams && f->streams[f->last_stream] == handle)
        return f->last_stream;
    struct stream_entry key = {handle, 0}, **found = tfind(&key, &f->stream_tree, cmp_stream_entry);
    if (found)
        return f->last_stream = (*found)->index;
    if (f->nstreams >= UINT16_MAX)
        return UINT16_MAX; /* streams[UINT16_MAX] is 0: "not known" */
    struct stream_entry *e = xmalloc(sizeof *e);
    *e = (struct stream_entry){handle, (uint16_t)f->nstreams};
    tsearch(e, &f->stream_tree, cmp_stream_entry);
    /* One more slot than entries: index UINT16_MAX reads as handle 0. */
    f->streams = xrealloc(f->streams, (f->nstreams + 2) * sizeof *f->streams);
    f->streams[f->nstreams] = handle;
    f->streams[f->nstreams + 1] = 0;
    return f->last_stream = (uint16_t)f->nstreams++;
}

void rank_file_add_tag(struct rank_file *f, uint64_t comm, int32_t rank, uint64_t seq, uint64_t tag)
{
    if (!tag)
        return;
    const struct op_tag *last = f->ntags ? &f->tags[f->ntags - 1] : NULL;
    if (last && last->comm == comm && last->rank == rank && last->seq == seq)
        return;  /* the executions of one captured call, in a row: memory saved (the sort removes any repeat) */
    f->tags = xgrow(f->tags, &f->cap_tags, f->ntags, sizeof *f->tags, 16);
    f->tags[f->ntags++] = (struct op_tag){comm, seq, tag, rank};
}

static int cmp_tag_key(uint64_t comm, int32_t rank, uint64_t seq, const struct op_tag *t)
{
    if (comm != t->comm)
        return comm < t->comm ? -1 : 1;
    if (rank != t->rank)
        return rank < t->rank ? -1 : 1;
    return seq < t->seq ? -1 : seq > t->seq;
}

static int cmp_tag(const void *a, const void *b)
{
    const struct op_tag *x = a;
    return cmp_tag_key(x->comm, x->rank, x->seq, b);
}

void rank_file_sort_tags(struct rank_file *f)
{
    if (!f->ntags)
        return;
    qsort(f->tags, f->ntags, sizeof *f->tags, cmp_tag);
    size_t kept = 1;
    for (size_t i = 1; i < f->ntags; i++)
        if (cmp_tag(&f->tags[i], &f->tags[kept - 1]) != 0)
            f->tags[kept++] = f->tags[i];
    f->ntags = kept;
}

uint64_t rank_file_tag(const struct rank_file *f, uint64_t comm, int32_t rank, uint64_t seq)
{
    size_t lo = 0, hi = f->ntags;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_tag_key(comm, rank, seq, &f->tags[mid]);
        if (!c)
            return f->tags[mid].tag;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

void rank_file_streams_free(struct rank_file *f)
{
    tdestroy(f->stream_tree, free);
    f->stream_tree = NULL;
    free(f->streams);
    f->streams = NULL;
    f->nstreams = 0;
}

uint8_t op_redop_from_name(const char *name)
{
    if (!strncmp(name, "premulsum#", 10))  /* a user op slot: not compared across ranks */
        return OP_REDOP_USER;
    for (uint8_t v = 2; v <= OP_REDOP_USER; v++)
        if (!strcmp(name, op_redop_name(v)))
            return v;
    return OP_REDOP_UNKNOWN;
}

const struct kernel_trace *kernel_of(const struct report *r, const struct rank_file *f)
{
    for (size_t i = 0; i < r->nkernels; i++)
        if (strcmp(r->kernels[i].host, f->host) == 0)
            return &r->kernels[i];
    return f->os;
}
