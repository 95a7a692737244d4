#include "nccl_data.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_knobs.h"
#include "nccl_shm.h"
#include "sim_time.h"

/* A shared object per operation: `done` at 0, `ready[nranks]` at 64, the
 * ranks' posted bytes from data_offset() on, one slice per rank. */
#define DATA_READY_AT 64

int sim_data_enabled(void)
{
    return sim_knobs()->data;
}

static size_t data_offset(int nranks)
{
    return (DATA_READY_AT + (size_t)nranks * sizeof(_Atomic uint32_t) + 63) & ~(size_t)63;
}

/* ---- elements: load as integer or double, reduce, store ---- */

enum kind { K_SIGNED, K_UNSIGNED, K_FLOAT };

static enum kind kind_of(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: case ncclInt32: case ncclInt64: return K_SIGNED;
    case ncclUint8: case ncclUint32: case ncclUint64: return K_UNSIGNED;
    default: return K_FLOAT;
    }
}

/* Small IEEE-like formats: E exponent bits, M mantissa bits. `fn` (fp8
 * e4m3): no infinities, the all-ones pattern is NaN, overflow saturates. */
static double mini_decode(unsigned bits, int E, int M, int fn)
{
    unsigned emask = (1u << E) - 1, fmask = (1u << M) - 1;
    unsigned e = (bits >> M) & emask, f = bits & fmask;
    int bias = (1 << (E - 1)) - 1;
    double v;
    if (!fn && e == emask)
        v = f ? NAN : INFINITY;
    else if (fn && e == emask && f == fmask)
        v = NAN;
    else if (e == 0)
        v = ldexp((double)f, 1 - bias - M);
    else
        v = ldexp((double)(f | (1u << M)), (int)e - bias - M);
    return (bits >> (E + M)) & 1 ? -v : v;
}

static unsigned mini_encode(double x, int E, int M, int fn)
{
    unsigned sign = signbit(x) ? 1u << (E + M) : 0;
    unsigned emask = (1u << E) - 1;
    unsigned emax = fn ? emask : emask - 1;                 /* largest finite exponent field */
    unsigned fmax = fn ? (1u << M) - 2 : (1u << M) - 1;     /* its largest mantissa */
    if (isnan(x))
        return fn ? sign | (emask << M) | ((1u << M) - 1) : sign | (emask << M) | (1u << (M - 1));
    x = fabs(x);
    if (x == 0)
        return sign;
    int bias = (1 << (E - 1)) - 1, e2;
    long efield = (long)emax + 1;           /* infinity: overflow, below */
    unsigned frac = 0;
    if (!isinf(x)) {
        frexp(x, &e2);
        int ue = e2 - 1;                    /* x in [2^ue, 2^(ue+1)) */
        if (ue < 1 - bias)
            ue = 1 - bias;                  /* subnormal */
        double q = rint(ldexp(x, M - ue));  /* to nearest even */
        if (q >= ldexp(1, M + 1)) {
            q /= 2;
            ue++;
        }
        if (q < ldexp(1, M)) {
            efield = 0;
            frac = (unsigned)q;
        } else {
            efield = ue + bias;
            frac = (unsigned)q - (1u << M);
        }
    }
    if (efield > (long)emax || (efield == (long)emax && frac > fmax))
        return fn ? sign | (emax << M) | fmax : sign | (emask << M);
    return sign | ((unsigned)efield << M) | frac;
}

static double load_f(const unsigned char *p, ncclDataType_t t)
{
    uint16_t h;
    float f;
    double d;
    switch (t) {
    case ncclFloat16: memcpy(&h, p, 2); return mini_decode(h, 5, 10, 0);
    case ncclBfloat16: memcpy(&h, p, 2); return mini_decode(h, 8, 7, 0);
    case ncclFloat8e4m3: return mini_decode(p[0], 4, 3, 1);
    case ncclFloat8e5m2: return mini_decode(p[0], 5, 2, 0);
    case ncclFloat32: memcpy(&f, p, 4); return f;
    default: memcpy(&d, p, 8); return d;
    }
}

static void store_f(unsigned char *p, ncclDataType_t t, double v)
{
    uint16_t h;
    float f = (float)v;
    switch (t) {
    case ncclFloat16: h = (uint16_t)mini_encode(v, 5, 10, 0); memcpy(p, &h, 2); break;
    case ncclBfloat16: h = (uint16_t)mini_encode(v, 8, 7, 0); memcpy(p, &h, 2); break;
    case ncclFloat8e4m3: p[0] = (unsigned char)mini_encode(v, 4, 3, 1); break;
    case ncclFloat8e5m2: p[0] = (unsigned char)mini_encode(v, 5, 2, 0); break;
    case ncclFloat32: memcpy(p, &f, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

/* Little-endian hosts: the low `ts` bytes, sign-extended when signed. */
static uint64_t load_i(const unsigned char *p, size_t ts, int is_signed)
{
    uint64_t v = 0;
    memcpy(&v, p, ts);
    if (is_signed && ts < 8 && (v >> (8 * ts - 1)) & 1)
        v |= ~0ull << (8 * ts);
    return v;
}

static uint64_t combine_i(uint64_t a, uint64_t b, int op, int is_signed)
{
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    switch (op) {
    case ncclSum: case ncclAvg: return a + b;
    case ncclProd: return a * b;
    case ncclMax: return is_signed ? (uint64_t)(sa > sb ? sa : sb) : (a > b ? a : b);
    default: return is_signed ? (uint64_t)(sa < sb ? sa : sb) : (a < b ? a : b);
    }
}

static double combine_f(double a, double b, int op)
{
    switch (op) {
    case ncclSum: case ncclAvg: return a + b;
    case ncclProd: return a * b;
    case ncclMax: return a > b ? a : b;
    default: return a < b ? a : b;
    }
}

/* out[i] = op over r of slice r's element (first + i), i < count. */
static void reduce(unsigned char *out, const unsigned char *slices, size_t slice_bytes, int n,
                   size_t first, size_t count, ncclDataType_t t, int op)
{
    size_t ts = sim_type_size(t);
    enum kind k = kind_of(t);
    for (size_t i = 0; i < count; i++) {
        const unsigned char *p = slices + (first + i) * ts;
        if (k == K_FLOAT) {
            double acc = load_f(p, t);
            for (int r = 1; r < n; r++)
                acc = combine_f(acc, load_f(p + (size_t)r * slice_bytes, t), op);
            if (op == ncclAvg)
                acc /= n;
            store_f(out + i * ts, t, acc);
        } else {
            int s = k == K_SIGNED;
            uint64_t acc = load_i(p, ts, s);
            for (int r = 1; r < n; r++)
                acc = combine_i(acc, load_i(p + (size_t)r * slice_bytes, ts, s), op, s);
            if (op == ncclAvg)
                acc = s ? (uint64_t)((int64_t)acc / n) : acc / (uint64_t)n;
            memcpy(out + i * ts, &acc, ts);
        }
    }
}

/* ---- the exchange ---- */

/* Maps the operation's object, waits for `ready` to be set by every rank
 * whose flag is in [0, n), and returns the mapping, or NULL after a
 * message. */
static unsigned char *wait_ready(unsigned char *m, int n, const char *name, const char *what)
{
    _Atomic uint32_t *ready = (_Atomic uint32_t *)(void *)(m + DATA_READY_AT);
    struct sim_backoff b;
    sim_backoff_init(&b, sim_knobs()->rdv_timeout_s);
    for (int r = 0; r < n; r++) {
        while (!atomic_load_explicit(&ready[r], memory_order_acquire)) {
            if (!sim_backoff_sleep(&b)) {
                fprintf(stderr, "ncclsim: NCCLSIM_DATA: %s: rank %d did not post its data "
                        "in %g s (%s)\n", what, r, sim_knobs()->rdv_timeout_s, name);
                return NULL;
            }
        }
    }
    return m;
}

/* Bytes rank r posts: its send buffer (only the root's counts for
 * broadcast and scatter). */
static size_t slice_bytes(enum sim_func f, size_t count, size_t ts, int n)
{
    switch (f) {
    case SIM_REDUCESCATTER: case SIM_ALLTOALL: case SIM_SCATTER:
        return count * ts * (size_t)n;
    default:
        return count * ts;
    }
}

static ncclResult_t collective(const struct sim_op *op, uint64_t seq)
{
    ncclComm_t c = op->comm;
    int n = c->nranks, me = c->rank, root = op->root;
    size_t ts = sim_type_size(op->type), count = op->count, block = count * ts;
    size_t slice = slice_bytes(op->func, count, ts, n), off = data_offset(n);
    size_t size = off + slice * (size_t)n;
    char name[SIM_SHM_NAME_LEN];
    sim_shm_name(name, 'd', sim_hash_mix(c->id, seq));
    unsigned char *m = sim_shm_map(name, size);
    if (!m)
        return ncclSystemError;
    unsigned char *mine = m + off + (size_t)me * slice, *all = m + off;
    int posts = (op->func != SIM_BROADCAST && op->func != SIM_SCATTER) || me == root;
    if (posts && slice)
        memcpy(mine, op->send, slice);
    atomic_store_explicit((_Atomic uint32_t *)(void *)(m + DATA_READY_AT) + me, 1,
                          memory_order_release);
    if (!wait_ready(m, n, name, "a collective")) {
        sim_shm_unmap(m, size);
        return ncclSystemError;
    }

    unsigned char *out = op->recv;
    switch (op->func) {
    case SIM_ALLREDUCE:
        reduce(out, all, slice, n, 0, count, op->type, op->redop);
        break;
    case SIM_REDUCE:
        if (me == root)
            reduce(out, all, slice, n, 0, count, op->type, op->redop);
        break;
    case SIM_REDUCESCATTER:
        reduce(out, all, slice, n, (size_t)me * count, count, op->type, op->redop);
        break;
    case SIM_BROADCAST:
        memcpy(out, all + (size_t)root * slice, block);
        break;
    case SIM_ALLGATHER: case SIM_GATHER:
        if (op->func == SIM_ALLGATHER || me == root)
            for (int r = 0; r < n; r++)
                memcpy(out + (size_t)r * block, all + (size_t)r * slice, block);
        break;
    case SIM_ALLTOALL:
        for (int r = 0; r < n; r++)
            memcpy(out + (size_t)r * block, all + (size_t)r * slice + (size_t)me * block, block);
        break;
    case SIM_SCATTER:
        memcpy(out, all + (size_t)root * slice + (size_t)me * block, block);
        break;
    default:
        break;
    }

    /* The last rank to read removes the name. */
    if (atomic_fetch_add((_Atomic uint32_t *)(void *)m, 1) + 1 == (uint32_t)n)
        sim_shm_unlink(name);
    sim_shm_unmap(m, size);
    return ncclSuccess;
}

/* Send number k from `from` to `to` on the communicator, counted per pair. */
static ncclResult_t p2p(const struct sim_op *op)
{
    ncclComm_t c = op->comm;
    int n = c->nranks, peer = op->root;
    if (!c->p2p_seq && !(c->p2p_seq = calloc(2 * (size_t)n, sizeof *c->p2p_seq)))
        return ncclSystemError;
    int sending = op->func == SIM_SEND;
    int from = sending ? c->rank : peer, to = sending ? peer : c->rank;
    uint64_t k = c->p2p_seq[(sending ? 0 : (size_t)n) + (size_t)peer]++;
    size_t bytes = op->count * sim_type_size(op->type), off = data_offset(1);
    char name[SIM_SHM_NAME_LEN];
    sim_shm_name(name, 'p', sim_hash_mix(sim_hash_mix(c->id, (uint64_t)from * (uint64_t)n + (uint64_t)to), k));
    unsigned char *m = sim_shm_map(name, off + bytes);
    if (!m)
        return ncclSystemError;
    if (sending) {
        memcpy(m + off, op->send, bytes);
        atomic_store_explicit((_Atomic uint32_t *)(void *)(m + DATA_READY_AT), 1, memory_order_release);
    } else {
        if (!wait_ready(m, 1, name, "a receive")) {
            sim_shm_unmap(m, off + bytes);
            return ncclSystemError;
        }
        memcpy(op->recv, m + off, bytes);
        sim_shm_unlink(name);   /* the sender is done with it */
    }
    sim_shm_unmap(m, off + bytes);
    return ncclSuccess;
}

ncclResult_t sim_data_move(const struct sim_op *op, uint64_t seq)
{
    if (sim_func_is_onesided(op->func))
        return ncclSuccess; /* a put's data is not moved (README, NCCL) */
    return sim_func_is_collective(op->func) ? collective(op, seq) : p2p(op);
}
