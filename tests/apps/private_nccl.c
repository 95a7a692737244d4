/* Loads a plugin that uses NCCL with dlopen(RTLD_LOCAL), as Python does,
 * and has it make 7 AllReduce calls. Usage: private_nccl PLUGIN.so */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    void *plugin = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
    int (*run)(int) = plugin ? (int (*)(int))dlsym(plugin, "plugin_run") : NULL;
    if (!run) {
        fprintf(stderr, "private_nccl: %s\n", dlerror());
        return 2;
    }
    if (run(7) != 0)
        return 1;
    printf("{\"expect\": \"calls\", \"origin\": \"init\", \"rank\": 0, \"op\": \"AllReduce\", \"n\": 7}\n");
    return 0;
}
