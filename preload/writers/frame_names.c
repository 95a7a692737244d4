#include "writers/frame_names.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state/callsite.h"

/* Names per (site, frame): NULL until looked up. Site ids are 1..capacity. */
static const char **names;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* A symbol table larger than this is not read (a huge unstripped library):
 * its frames keep what the dynamic table says. */
#define SYMTAB_MAX (64u << 20)
#define NAME_MAX_LEN 4096
#define CHUNK 512

static bool is_function(const ElfW(Sym) *s, ElfW(Addr) addr)
{
    unsigned type = ELF64_ST_TYPE(s->st_info);
    return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF && s->st_size &&
           addr >= s->st_value && addr - s->st_value < s->st_size;
}

/* From the dynamic symbol table: the exported function holding `addr`. */
static const char *dynamic_name(const void *addr)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (!dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !info.dli_sname || !sym || !info.dli_saddr)
        return NULL;
    uintptr_t start = (uintptr_t)info.dli_saddr, a = (uintptr_t)addr;
    return sym->st_size && a >= start && a - start < sym->st_size ? info.dli_sname : NULL;
}

/* The name at offset `at` of the string table at file offset `table`
 * (`size` bytes), copied; NULL when unreadable. */
static char *string_at(int fd, off_t table, size_t size, size_t at)
{
    if (at >= size)
        return NULL;
    size_t len = size - at < NAME_MAX_LEN ? size - at : NAME_MAX_LEN;
    char *s = malloc(len + 1);
    ssize_t got = s ? pread(fd, s, len, table + (off_t)at) : -1;
    if (got <= 0 || !memchr(s, '\0', (size_t)got)) {
        free(s);
        return NULL;
    }
    return s;
}

/* From the file's .symtab: the function holding file address `addr`. */
static char *symtab_name(const char *path, ElfW(Addr) addr)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *found = NULL;
    ElfW(Ehdr) eh;
    ElfW(Shdr) sym_sh, str_sh;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof sym_sh)
        goto out;
    bool have = false;
    for (unsigned i = 0; i < eh.e_shnum && !have; i++)
        have = pread(fd, &sym_sh, sizeof sym_sh, (off_t)(eh.e_shoff + i * sizeof sym_sh)) == (ssize_t)sizeof sym_sh &&
               sym_sh.sh_type == SHT_SYMTAB;
    if (!have || sym_sh.sh_size > SYMTAB_MAX || sym_sh.sh_entsize != sizeof(ElfW(Sym)) ||
        pread(fd, &str_sh, sizeof str_sh, (off_t)(eh.e_shoff + sym_sh.sh_link * sizeof str_sh)) != (ssize_t)sizeof str_sh)
        goto out;
    ElfW(Sym) chunk[CHUNK];
    size_t n = sym_sh.sh_size / sizeof chunk[0];
    for (size_t i = 0; i < n && !found; i += CHUNK) {
        size_t want = (n - i < CHUNK ? n - i : CHUNK) * sizeof chunk[0];
        if (pread(fd, chunk, want, (off_t)(sym_sh.sh_offset + i * sizeof chunk[0])) != (ssize_t)want)
            break;
        for (size_t k = 0; k < want / sizeof chunk[0] && !found; k++)
            if (is_function(&chunk[k], addr))
                found = string_at(fd, (off_t)str_sh.sh_offset, str_sh.sh_size, chunk[k].st_name);
    }
out:
    close(fd);
    return found;
}

static const char *look_up(uintptr_t pc, const struct tap_module *m)
{
    /* A return address: the call is the instruction before it. */
    const char *name = dynamic_name((const void *)(pc - 1));
    if (name)
        return strdup(name);
    return m ? symtab_name(m->path, (ElfW(Addr))(pc - 1 - m->base)) : NULL;
}

const char *tap_frame_name(uint16_t site, unsigned k, unsigned depth, uintptr_t pc, const struct tap_module *m)
{
    if (!site || site > TAP_SITE_CAPACITY || k >= depth)
        return "";
    pthread_mutex_lock(&lock);
    if (!names)
        names = calloc((size_t)TAP_SITE_CAPACITY * depth, sizeof *names);
    const char **slot = names ? &names[(size_t)(site - 1) * depth + k] : NULL;
    if (slot && !*slot) {
        const char *name = look_up(pc, m);
        *slot = name ? name : "";
    }
    const char *name = slot ? *slot : "";
    pthread_mutex_unlock(&lock);
    return name;
}
