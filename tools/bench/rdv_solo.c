#include "rdv.h"

static void solo_share_ids(struct rdv *r, ncclUniqueId *ids, int n)
{
    (void)r; (void)ids; (void)n;
}

static void solo_nothing(struct rdv *r)
{
    (void)r;
}

static long long solo_sum(struct rdv *r, long long v)
{
    (void)r;
    return v;
}

static const struct rdv_ops solo_ops = { solo_share_ids, solo_nothing, solo_sum, solo_nothing };

struct rdv *rdv_solo(void)
{
    static struct rdv solo = { &solo_ops, 0, 1 };
    return &solo;
}
