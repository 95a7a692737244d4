/* The output rules (preload/output/out_dir.h, out_file.h), on a scratch
 * directory, and the configuration's parsers (runtime/config.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/out_dir.h"
#include "base/out_file.h"
#include "base/run_id.h"
#include "test.h"

static const char *const *fake_env;

static char *fake_getenv(const char *name)
{
    size_t n = strlen(name);
    for (const char *const *e = fake_env; *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return (char *)*e + n + 1;
    return NULL;
}

static void run_id_is(const char *const *env, const char *want)
{
    char id[64];
    fake_env = env;
    int found = tap_run_id_of_launcher(id, sizeof id, fake_getenv);
    CHECK(want ? found && !strcmp(id, want) : !found);
}

static void job_shape_is(const char *const *env, uint32_t ranks, uint32_t nodes)
{
    uint32_t r = 0, n = 0;
    fake_env = env;
    int rc = tap_parse_job_shape(fake_getenv, &r, &n);
    CHECK(ranks ? rc == 0 && r == ranks && n == nodes : rc != 0);
}

static void test_job_shapes(void)
{
    /* torchrun under Slurm: SLURM_NTASKS counts the launchers, not the ranks. */
    job_shape_is((const char *const[]){"WORLD_SIZE=16", "LOCAL_WORLD_SIZE=8", "SLURM_NTASKS=2",
                                       "SLURM_NNODES=2", NULL}, 16, 2);
    job_shape_is((const char *const[]){"OMPI_COMM_WORLD_SIZE=8", "OMPI_COMM_WORLD_LOCAL_SIZE=8", NULL}, 8, 1);
    job_shape_is((const char *const[]){"SLURM_NTASKS=32", "SLURM_NNODES=4", NULL}, 32, 4);
    job_shape_is((const char *const[]){"WORLD_SIZE=6", "LOCAL_WORLD_SIZE=4", NULL}, 0, 0); /* not whole nodes */
    job_shape_is((const char *const[]){"WORLD_SIZE=8", NULL}, 0, 0);
    job_shape_is((const char *const[]){"SLURM_NTASKS=2", "SLURM_NNODES=4", NULL}, 0, 0);
    job_shape_is((const char *const[]){"WORLD_SIZE=-8", "LOCAL_WORLD_SIZE=8", NULL}, 0, 0);
    job_shape_is((const char *const[]){"HOME=/root", NULL}, 0, 0);
}

static void job_world_is(const char *const *env, uint32_t world)
{
    fake_env = env;
    CHECK(tap_parse_job_world(fake_getenv) == world);
}

/* The job's ranks for the per-op outputs' bound: any launcher's world
 * size alone, the first set. */
static void test_job_worlds(void)
{
    job_world_is((const char *const[]){"WORLD_SIZE=1000", "SLURM_NTASKS=125", NULL}, 1000);
    job_world_is((const char *const[]){"OMPI_COMM_WORLD_SIZE=64", NULL}, 64);
    job_world_is((const char *const[]){"SLURM_NTASKS=32", NULL}, 32);
    job_world_is((const char *const[]){"PMI_SIZE=16", NULL}, 16);
    job_world_is((const char *const[]){"WORLD_SIZE=0", NULL}, 0);
    job_world_is((const char *const[]){"WORLD_SIZE=x", "PMI_SIZE=4", NULL}, 4);
    job_world_is((const char *const[]){"HOME=/root", NULL}, 0);
}

static void test_run_ids(void)
{
    run_id_is((const char *const[]){"NCCLTAP_RUN_ID=mine", "SLURM_JOB_ID=7", NULL}, "mine");
    run_id_is((const char *const[]){"SLURM_JOB_ID=7", "SLURM_STEP_ID=2", NULL}, "7.2");
    run_id_is((const char *const[]){"SLURM_JOB_ID=7", NULL}, "7");
    run_id_is((const char *const[]){"TORCHELASTIC_RUN_ID=none", "PMIX_NAMESPACE=prterun-h-1@1", NULL},
              "prterun-h-1_1");
    run_id_is((const char *const[]){"TORCHELASTIC_RUN_ID=abc", "TORCHELASTIC_RESTART_COUNT=2", NULL}, "abc.r2");
    run_id_is((const char *const[]){"OMPI_MCA_ess_base_jobid=../../etc", NULL}, ".._.._etc");
    run_id_is((const char *const[]){"HOME=/root", NULL}, NULL);
    /* Too long for the id: its head and a hash of the whole, so that a
     * restart, or another pid at the end of the namespace, stays apart. */
    const char *elastic = "TORCHELASTIC_RUN_ID=0123456789012345678901234567890123456789012345678901234567890123456789";
    char first[64], restart[64];
    fake_env = (const char *const[]){elastic, "TORCHELASTIC_RESTART_COUNT=0", NULL};
    CHECK(tap_run_id_of_launcher(first, sizeof first, fake_getenv));
    fake_env = (const char *const[]){elastic, "TORCHELASTIC_RESTART_COUNT=1", NULL};
    CHECK(tap_run_id_of_launcher(restart, sizeof restart, fake_getenv));
    CHECK(strlen(first) == 63 && strlen(restart) == 63 && strcmp(first, restart) != 0);
    CHECK(!strncmp(first, "0123456789012345678901234567890123456789012345", 46) && first[46] == '-');
    /* The default directory's name: one safe component, whatever the id. */
    char name[256];
    tap_job_dir_name(name, sizeof name, "a/../../escaped");
    CHECK(!strcmp(name, "nccltap-a_.._.._escaped"));
    tap_job_dir_name(name, sizeof name, "..");
    CHECK(!strcmp(name, "nccltap-.."));
    tap_job_dir_name(name, sizeof name, "x\033[2J\n");
    CHECK(!strcmp(name, "nccltap-x__2J_"));
    char longid[400];
    memset(longid, '7', sizeof longid - 1);
    longid[sizeof longid - 1] = '\0';
    tap_job_dir_name(name, sizeof name, longid);
    CHECK(strlen(name) == strlen("nccltap-") + TAP_JOB_DIR_ID_MAX);
    /* pg<pgid>-<leader's start>; the start is 0 when the leader is gone. */
    char pg[64], again[64], want[32], leader[32];
    tap_run_id_of_process_group(pg, sizeof pg);
    tap_run_id_of_process_group(again, sizeof again);
    snprintf(want, sizeof want, "pg%d-", (int)getpgrp());
    snprintf(leader, sizeof leader, "/proc/%d", (int)getpgrp());
    unsigned long long start = strtoull(pg + strlen(want), NULL, 10);
    CHECK(!strncmp(pg, want, strlen(want)) && !strcmp(pg, again));
    CHECK(access(leader, F_OK) == 0 ? start > 0 : start == 0);
}

static void test_parsers(void)
{
    mode_t m = 0;
    CHECK(tap_out_parse_mode("0755", &m) == 0 && m == 0755);
    CHECK(tap_out_parse_mode("700", &m) == 0 && m == 0700);
    CHECK(tap_out_parse_mode("0666", &m) != 0); /* no owner x: unusable */
    CHECK(tap_out_parse_mode("4755", &m) != 0);
    CHECK(tap_out_parse_mode("0789", &m) != 0);
    CHECK(tap_out_parse_mode("", &m) != 0);
    /* Modes whose directories nccltap would then refuse to write in
     * (others may write, not sticky): refused up front, with the reason. */
    CHECK(tap_out_parse_mode("0777", &m) != 0 && tap_out_parse_mode("0772", &m) != 0);
    CHECK(strstr(tap_out_mode_refusal("0777", &m), "others could write"));
    CHECK(tap_out_parse_mode("0775", &m) == 0 && m == 0775);
    CHECK(tap_out_parse_mode("0770", &m) == 0 && m == 0770);
    bool flag;
    CHECK(tap_parse_flag("1", &flag) == 0 && flag);
    CHECK(tap_parse_flag("0", &flag) == 0 && !flag);
    CHECK(tap_parse_flag("2", &flag) != 0 && tap_parse_flag("yes", &flag) != 0 && tap_parse_flag("", &flag) != 0);
    enum tap_ops_jsonl jsonl = TAP_OPS_JSONL_OFF;
    CHECK(tap_parse_ops_jsonl("inspector", &jsonl) == 0 && jsonl == TAP_OPS_JSONL_INSPECTOR);
    CHECK(tap_parse_ops_jsonl("1", &jsonl) == 0 && jsonl == TAP_OPS_JSONL_NCCLTAP);
    CHECK(tap_parse_ops_jsonl("0", &jsonl) == 0 && jsonl == TAP_OPS_JSONL_OFF);
    CHECK(tap_parse_ops_jsonl("Inspector", &jsonl) != 0 && tap_parse_ops_jsonl("2", &jsonl) != 0 &&
          tap_parse_ops_jsonl("", &jsonl) != 0 && tap_parse_ops_jsonl("inspector ", &jsonl) != 0);
    uint32_t u;
    CHECK(tap_parse_u32("10", 10, 20, &u) == 0 && u == 10);
    CHECK(tap_parse_u32("21", 10, 20, &u) != 0 && tap_parse_u32("-5", 0, 20, &u) != 0);
    CHECK(tap_parse_u32(" 5", 0, 20, &u) != 0 && tap_parse_u32("+5", 0, 20, &u) != 0);
    CHECK(tap_parse_u32("5x", 0, 20, &u) != 0 && tap_parse_u32("99999999999999999999", 0, 20, &u) != 0);
    double pct;
    CHECK(tap_parse_pct("0.5", &pct) == 0 && pct == 0.5);
    CHECK(tap_parse_pct("0", &pct) != 0 && tap_parse_pct("nan", &pct) != 0 && tap_parse_pct("", &pct) != 0);
    CHECK(tap_parse_pct("100", &pct) == 0 && tap_parse_pct("100.1", &pct) != 0);
    char part[16];
    tap_out_name_part(part, sizeof part, "a/b\n c");
    CHECK(!strcmp(part, "a_b__c"));
    tap_out_name_part(part, sizeof part, "");
    CHECK(!strcmp(part, "_"));
}

/* Opens `base`/`rel` as the output directory: 0, or -1 and *why. */
static int open_below(const char *base, const char *rel, const char **why)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", base, rel);
    int fd = tap_out_dir_open(path, 0700, why, NULL);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* Symlinks above the output directory (issue 19): followed only when
 * nobody else could have put them there. Another user's symlink needs
 * root: tests/security/parent_symlink.sh. */
static void test_symlinks_above(const char *base)
{
    char path[512], target[512];
    const char *why = NULL;
    /* Ours, in our directory, relative and absolute: followed. */
    snprintf(path, sizeof path, "%s/s", base);
    CHECK(mkdir(path, 0755) == 0);
    snprintf(path, sizeof path, "%s/s/rel", base);
    CHECK(symlink("../a", path) == 0);
    snprintf(path, sizeof path, "%s/s/abs", base);
    snprintf(target, sizeof target, "%s/a", base);
    CHECK(symlink(target, path) == 0);
    CHECK(open_below(base, "s/rel/c", &why) == 0);
    CHECK(open_below(base, "s/abs/d", &why) == 0);
    snprintf(path, sizeof path, "%s/a/c", base);
    CHECK(access(path, F_OK) == 0);
    /* Ours, but where others could replace it: refused. */
    snprintf(path, sizeof path, "%s/open", base);
    CHECK(mkdir(path, 0700) == 0 && chmod(path, 0777) == 0);
    snprintf(path, sizeof path, "%s/open/link", base);
    CHECK(symlink(target, path) == 0);
    CHECK(open_below(base, "open/link/e", &why) < 0 && errno == EPERM &&
          !strcmp(why, "above it, a symlink in a directory others can write in, not sticky"));
    snprintf(path, sizeof path, "%s/a/e", base);
    CHECK(access(path, F_OK) != 0);
    /* A loop; a file where a directory should be. */
    snprintf(path, sizeof path, "%s/s/loop", base);
    CHECK(symlink("loop", path) == 0);
    CHECK(open_below(base, "s/loop/f", &why) < 0 && errno == ELOOP && !strcmp(why, "too many symlinks above it"));
    snprintf(path, sizeof path, "%s/s/file", base);
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    CHECK(fd >= 0);
    close(fd);
    CHECK(open_below(base, "s/file/g", &why) < 0 && !strcmp(why, "above it, a file that is not a directory"));
}

static void test_dirs_and_files(void)
{
    char base[] = "/tmp/nccltap-unit-XXXXXX";
    if (!mkdtemp(base)) {
        CHECK(!"mkdtemp");
        return;
    }
    char path[256], sub[300];
    const char *why = NULL;
    int created = 0;
    mode_t old = umask(077);

    /* Made with its parents, exactly the mode asked, whatever the umask. */
    snprintf(path, sizeof path, "%s/a/b/", base);
    int dir = tap_out_dir_open(path, 0750, &why, &created);
    struct stat st;
    snprintf(sub, sizeof sub, "%s/a/b", base);
    CHECK(dir >= 0 && created && stat(sub, &st) == 0 && (st.st_mode & 07777) == 0750);

    /* A file replaced whole: the temporary is hidden, then renamed. */
    struct tap_out_file o;
    FILE *f = tap_out_file_begin(&o, dir, "x.json", 0644);
    CHECK(f && o.tmp[0] == '.');
    fputs("{}", f);
    CHECK(tap_out_file_commit(&o) == 0);
    CHECK(fstatat(dir, "x.json", &st, 0) == 0 && (st.st_mode & 07777) == 0644 && st.st_size == 2);
    CHECK(faccessat(dir, o.tmp, F_OK, 0) != 0);

    /* A planted symlink is replaced, never written through. */
    CHECK(symlinkat("/etc/passwd", dir, "y.json") == 0);
    f = tap_out_file_begin(&o, dir, "y.json", TAP_OUT_FILE_MODE);
    fputs("{}", f);
    CHECK(tap_out_file_commit(&o) == 0);
    CHECK(fstatat(dir, "y.json", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode));

    /* A log is created, never opened when it exists (a symlink above all). */
    int fd = tap_out_file_create(dir, "z.log", TAP_OUT_FILE_MODE);
    CHECK(fd >= 0);
    close(fd);
    CHECK(tap_out_file_create(dir, "z.log", TAP_OUT_FILE_MODE) < 0 && errno == EEXIST);
    CHECK(symlinkat("/etc/passwd", dir, "w.log") == 0);
    CHECK(tap_out_file_create(dir, "w.log", TAP_OUT_FILE_MODE) < 0);
    close(dir);

    /* Refused: a symlink to a directory, a directory others can write in. */
    snprintf(path, sizeof path, "%s/link", base);
    CHECK(symlink(sub, path) == 0);
    CHECK(tap_out_dir_open(path, 0700, &why, NULL) < 0 && !strcmp(why, "a symlink or not a directory"));
    CHECK(chmod(sub, 0777) == 0);
    CHECK(tap_out_dir_open(sub, 0700, &why, NULL) < 0 && !strcmp(why, "writable by others and not sticky"));
    CHECK(chmod(sub, 01777) == 0);
    dir = tap_out_dir_open(sub, 0700, &why, &created);
    CHECK(dir >= 0 && !created); /* sticky, like /tmp: usable */
    if (dir >= 0)
        close(dir);
    test_symlinks_above(base);
    umask(old);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    CHECK(system(cmd) == 0);
}

void test_out(void)
{
    test_parsers();
    test_run_ids();
    test_job_shapes();
    test_job_worlds();
    test_dirs_and_files();
}
