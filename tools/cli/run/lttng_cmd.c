#include "lttng_cmd.h"
#include "capture.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define LTTNG "lttng"

static const char *client_home;

void lttng_cmd_set_home(const char *home)
{
    client_home = home;
}

/* capture_run() passes nccltap's environment on: LTTNG_HOME is set in it
 * for the client's run only. */
static int run_client(const char *const argv[], char **out)
{
    if (!client_home)
        return capture_run(argv, out);
    const char *old = getenv("LTTNG_HOME");
    char *saved = old ? xstrdup(old) : NULL;
    setenv("LTTNG_HOME", client_home, 1);
    int status = capture_run(argv, out);
    if (saved)
        setenv("LTTNG_HOME", saved, 1);
    else
        unsetenv("LTTNG_HOME");
    free(saved);
    return status;
}

/* "lttng create NAME --output=D", for a message. */
static char *command_line(const char *const argv[])
{
    size_t n = 1;
    for (size_t i = 0; argv[i]; i++)
        n += strlen(argv[i]) + 1;
    char *s = xcalloc(n, 1);
    for (size_t i = 0; argv[i]; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

int lttng_cmd(const char *const args[], char **output, char **error)
{
    size_t n = 0;
    while (args[n])
        n++;
    /* --no-sessiond: without it the client starts a session daemon when
     * none answers, which would outlive nccltap. */
    const char **argv = xcalloc(n + 3, sizeof *argv);
    argv[0] = LTTNG;
    argv[1] = "--no-sessiond";
    memcpy(argv + 2, args, n * sizeof *argv);

    char *out;
    int status = run_client(argv, &out);
    int rc = 0;
    if (status != 0) {
        char *cmd = command_line(argv);
        char *said = capture_one_line(out[0] ? out : "it printed nothing");
        if (status < 0)
            *error = xasprintf("%s (is lttng-tools installed? Debian/Ubuntu: "
                               "apt-get install lttng-tools)", said);
        else
            *error = xasprintf("`%s` failed (exit status %d): %s", cmd, status, said);
        free(said);
        free(cmd);
        rc = -1;
    }
    if (output)
        *output = out;
    else
        free(out);
    free(argv);
    return rc;
}
