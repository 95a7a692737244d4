/* The Prometheus text format's pieces (preload/output/prom_text.h) and the
 * metrics' job id (runtime/config.h). */
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "writers/prom_text.h"
#include "test.h"

/* What `fn` writes, as a string (static buffer). */
#define WRITTEN(call)                                  \
    ({                                                 \
        static char out_[512];                         \
        FILE *f_ = fmemopen(out_, sizeof out_, "w");   \
        FILE *f = f_;                                  \
        call;                                          \
        fclose(f_);                                    \
        out_;                                          \
    })

static const char *label(const char *value)
{
    return WRITTEN(tap_prom_label_value(f, value));
}

static const char *value(double v)
{
    return WRITTEN(tap_prom_value(f, v));
}

static const char *size_name(uint64_t bytes, uint64_t *lower)
{
    static char buf[32];
    *lower = tap_prom_inspector_size(bytes, buf, sizeof buf);
    return buf;
}

static void test_label_values(void)
{
    CHECK(!strcmp(label("DP group 0"), "DP group 0"));
    /* The three escapes of the format, and nothing else escaped. */
    CHECK(!strcmp(label("a\\b\"c\nd\te"), "a\\\\b\\\"c\\nd\te"));
    /* UTF-8 kept; a byte that is not UTF-8 becomes U+FFFD. */
    CHECK(!strcmp(label("gr\xc3\xbc\xc3\x9f"), "gr\xc3\xbc\xc3\x9f"));
    CHECK(!strcmp(label("x\xff" "y"), "x\xef\xbf\xbdy"));
    CHECK(!strcmp(label("\xc3"), "\xef\xbf\xbd")); /* cut in a character */
    CHECK(!strcmp(WRITTEN(tap_prom_label(f, ",", "comm_name", "q\"")), ",comm_name=\"q\\\"\""));
}

static void test_values(void)
{
    CHECK(!strcmp(value(0), "0"));
    CHECK(!strcmp(value(200), "200"));
    CHECK(!strcmp(value(0.1), "0.1"));
    CHECK(!strcmp(value(1.0 / 3), "0.3333333333"));
    CHECK(!strcmp(value(199.99999999999), "200"));
    CHECK(!strcmp(WRITTEN(tap_prom_uint(f, 0)), "0"));
    CHECK(!strcmp(WRITTEN(tap_prom_uint(f, 18446744073709551615ull)), "18446744073709551615"));
    CHECK(!strcmp(value(1.0 / 0.0), "+Inf"));
    CHECK(!strcmp(value(-1.0 / 0.0), "-Inf"));
    CHECK(!strcmp(value(0.0 / 0.0), "NaN"));
}

/* Inspector's bucket names (inspector_prom.cc, and its README's examples:
 * "4-5GB", "512-513MB"). */
static void test_inspector_sizes(void)
{
    uint64_t lower;
    CHECK(!strcmp(size_name(0, &lower), "0B") && lower == 0);
    CHECK(!strcmp(size_name(8, &lower), "8-9B") && lower == 8);
    CHECK(!strcmp(size_name(1023, &lower), "1023-1024B") && lower == 1023);
    CHECK(!strcmp(size_name(1024, &lower), "1-2KB") && lower == 1024);
    CHECK(!strcmp(size_name(1536, &lower), "1-2KB") && lower == 1024);
    CHECK(!strcmp(size_name(3 << 20, &lower), "3-4MB") && lower == 3u << 20);
    CHECK(!strcmp(size_name((512ull << 20) + 1000, &lower), "512-513MB") && lower == 512ull << 20);
    CHECK(!strcmp(size_name(4ull << 30, &lower), "4-5GB") && lower == 4ull << 30);
    CHECK(!strcmp(size_name(5000ull << 40, &lower), "5000-5001TB") && lower == 5000ull << 40);
}

static const char *const *env;

static char *get(const char *name)
{
    size_t n = strlen(name);
    for (const char *const *e = env; *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return (char *)*e + n + 1;
    return NULL;
}

static void test_job_ids(void)
{
    char id[16];
    env = (const char *const[]){"SLURM_JOB_ID=7", "TORCHELASTIC_RUN_ID=t", "NCCLTAP_JOB_ID=mine", NULL};
    CHECK(tap_job_id_of(id, sizeof id, get) == 0 && !strcmp(id, "mine"));
    env = (const char *const[]){"TORCHELASTIC_RUN_ID=t", "SLURM_JOB_ID=7", NULL};
    CHECK(tap_job_id_of(id, sizeof id, get) == 0 && !strcmp(id, "7"));
    env = (const char *const[]){"TORCHELASTIC_RUN_ID=t", "NCCLTAP_JOB_ID=", NULL};
    CHECK(tap_job_id_of(id, sizeof id, get) == 0 && !strcmp(id, "t"));
    env = (const char *const[]){NULL};
    CHECK(tap_job_id_of(id, sizeof id, get) == 0 && !strcmp(id, ""));
    env = (const char *const[]){"NCCLTAP_JOB_ID=0123456789abcdef", NULL};
    CHECK(tap_job_id_of(id, sizeof id, get) == -1 && !strcmp(id, ""));
}

void test_prom(void)
{
    test_label_values();
    test_values();
    test_inspector_sizes();
    test_job_ids();
}
