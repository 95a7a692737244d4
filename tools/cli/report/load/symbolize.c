/* Call-site frames to function, file, line and library, with elfutils
 * (libdwfl), from the load map each rank file records: no live process is
 * needed, and another machine with the same binaries will do. An object is
 * found by its recorded path when the file there has the recorded build id,
 * else by build id under each debug directory's .build-id/; its debug
 * information by build id or debuglink in those directories (the debug
 * directories given, then /usr/lib/debug). Each object is opened once for
 * the whole report, at load bias 0: frames are looked up by their offset
 * in the file, so the ranks of one binary share it whatever their ASLR.
 * Built without elfutils (NCCLTAP_WITH_LIBDW unset), every frame gets
 * library+0xoffset. Where no object is found, a frame takes the name the
 * shim recorded from its process's symbol tables ("symbols"), without a
 * file or line. */
#include "load.h"
#include "demangle.h"
#include "input_file.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef NCCLTAP_WITH_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

/* One object, as opened (or not) for the report. */
struct object {
    const char *path, *build_id;  /* the key, interned */
    Dwfl *dwfl;                   /* NULL: no file found; frames get library+0xoffset */
    Dwfl_Module *mod;
};

struct symbolizer {
    struct report *r;
    Dwfl_Callbacks callbacks;
    char *debuginfo_path;         /* "-:.debug:DIR...:/usr/lib/debug", for libdwfl */
    char *const *dirs;
    size_t ndirs;
    struct object *objects;
    size_t nobjects, cap;
};

/* The build id of the ELF file open at `fd`, in hex; false when it cannot
 * be read. The descriptor stays open, at no particular offset. */
static bool file_build_id(int fd, char *hex, size_t len)
{
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    const unsigned char *id = NULL;
    ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, (const void **)&id) : -1;
    hex[0] = '\0';
    for (ssize_t i = 0; i < n && (size_t)(2 * i + 2) < len; i++)
        snprintf(hex + 2 * i, 3, "%02x", id[i]);
    if (elf)
        elf_end(elf);
    return elf != NULL;
}

/* The object at a path the rank file chose: only a regular file, never
 * under /dev, /proc or /sys (input_open_chosen), so that a FIFO there
 * cannot hang the report nor a device be read as root. -1 otherwise. */
static int open_object(const char *path)
{
    char why[256];
    return input_open_chosen(path, UINT64_MAX, why, sizeof why);
}

/* A build id as the shim writes it: hex digits only, so that it cannot
 * lead a path built from it out of the debug directory. */
static bool plain_hex(const char *s)
{
    return s[strspn(s, "0123456789abcdef")] == '\0';
}

/* The object to symbolize with, open: the file at its own path when it is
 * the one that ran; else DIR/.build-id/xx/rest(.debug) in a debug
 * directory. -1 when none is found. */
static int locate(const struct symbolizer *s, const char *path, const char *build_id)
{
    char hex[2 * 64 + 1];
    int fd = open_object(path);
    if (fd >= 0 && (!build_id[0] || (file_build_id(fd, hex, sizeof hex) && !strcmp(hex, build_id))))
        return fd;
    if (fd >= 0)
        close(fd);
    if (strlen(build_id) < 3 || !plain_hex(build_id))
        return -1;
    static const char *const suffixes[] = {"", ".debug"};
    for (size_t d = 0; d <= s->ndirs; d++) {
        const char *dir = d < s->ndirs ? s->dirs[d] : "/usr/lib/debug";
        for (size_t k = 0; k < 2; k++) {
            char *p = xasprintf("%s/.build-id/%.2s/%s%s", dir, build_id, build_id + 2, suffixes[k]);
            fd = open_object(p);
            free(p);
            if (fd >= 0)
                return fd;
        }
    }
    return -1;
}

static struct object *object_of(struct symbolizer *s, const struct module_entry *m)
{
    for (size_t i = 0; i < s->nobjects; i++)
        if (s->objects[i].path == m->path && s->objects[i].build_id == m->build_id)
            return &s->objects[i];
    if (s->nobjects == s->cap)
        s->objects = xrealloc(s->objects, (s->cap = s->cap ? 2 * s->cap : 16) * sizeof *s->objects);
    struct object *o = &s->objects[s->nobjects++];
    memset(o, 0, sizeof *o);
    o->path = m->path;
    o->build_id = m->build_id;
    int fd = locate(s, m->path, m->build_id);
    if (fd < 0)
        return o;
    /* Given the descriptor, libdwfl opens nothing itself; it owns fd once
     * the module is reported, and leaves it to us when that fails. */
    o->dwfl = dwfl_begin(&s->callbacks);
    o->mod = o->dwfl ? dwfl_report_elf(o->dwfl, path_base(m->path), m->path, fd, 0, false) : NULL;
    if (o->dwfl)
        dwfl_report_end(o->dwfl, NULL, NULL);
    if (!o->mod) {
        close(fd);
        if (o->dwfl)
            dwfl_end(o->dwfl);
        o->dwfl = NULL;
    }
    return o;
}

/* The DIE that declares `die`: through its abstract origin (an inlined or
 * out-of-line instance) and specification (a definition out of its class
 * or namespace). */
static void declaration_of(Dwarf_Die *die, Dwarf_Die *out)
{
    *out = *die;
    for (int hops = 0; hops < 8; hops++) {
        Dwarf_Attribute attr;
        Dwarf_Die next;
        if (!(dwarf_attr(out, DW_AT_abstract_origin, &attr) || dwarf_attr(out, DW_AT_specification, &attr)) ||
            !dwarf_formref_die(&attr, &next))
            return;
        *out = next;
    }
}

/* "ns::Class::name", from the namespaces and classes around the
 * declaration: for functions without a linkage name (static ones). */
static char *scoped_name(Dwarf_Die *die)
{
    Dwarf_Die decl, *scopes = NULL;
    declaration_of(die, &decl);
    const char *name = dwarf_diename(&decl);
    if (!name)
        return NULL;
    int n = dwarf_getscopes_die(&decl, &scopes);
    size_t len = strlen(name) + 1;
    for (int i = 1; i < n; i++)
        if (dwarf_diename(&scopes[i]))
            len += strlen(dwarf_diename(&scopes[i])) + 2;
    char *out = xcalloc(len, 1);
    for (int i = n - 1; i >= 1; i--) {
        int tag = dwarf_tag(&scopes[i]);
        const char *scope = dwarf_diename(&scopes[i]);
        if (scope && (tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
                      tag == DW_TAG_union_type))
            strcat(strcat(out, scope), "::");
    }
    strcat(out, name);
    free(scopes);
    return out;
}

/* A function's name for people: the demangled linkage name of C++ (with
 * its parameters), else its name in its namespaces and classes. */
static const char *die_name(struct report *r, Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *linkage = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
        linkage = dwarf_formstring(&attr);
    char *plain = linkage ? demangle(linkage) : scoped_name(die);
    const char *name = plain ? plain : linkage;
    const char *interned = name ? report_intern(r, name) : NULL;
    free(plain);
    return interned;
}

/* The symbol-table name at `pc`, demangled: the out-of-line function the
 * code is in. */
static const char *symbol_name(struct report *r, Dwfl_Module *mod, Dwarf_Addr pc)
{
    const char *sym = dwfl_module_addrname(mod, pc);
    if (!sym)
        return NULL;
    char *plain = demangle(sym);
    const char *name = report_intern(r, plain ? plain : sym);
    free(plain);
    return name;
}

static bool is_function(Dwarf_Die *die)
{
    int tag = dwarf_tag(die);
    return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

/* The innermost function at `pc` (an inlined one, if the call is in its
 * inlined body) and, when inlined, the function it was inlined into (the
 * symbol the code is in: libdw's scopes of an inlined body lead to its
 * abstract definition, not to its caller). */
static void scope_names(struct report *r, Dwfl_Module *mod, Dwarf_Addr pc, struct site_frame *f)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias);
    Dwarf_Die *scopes = NULL;
    int n = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
    int inner = 0;
    while (inner < n && !is_function(&scopes[inner]))
        inner++;
    if (inner < n) {
        const char *name = die_name(r, &scopes[inner]);
        if (name)
            f->function = name;
        if (name && dwarf_tag(&scopes[inner]) == DW_TAG_inlined_subroutine) {
            const char *into = symbol_name(r, mod, pc);
            f->inlined_into = into && into != name ? into : "";
        }
    }
    free(scopes);
}

static void lookup(struct symbolizer *s, const struct module_entry *m, struct site_frame *f)
{
    struct report *r = s->r;
    struct object *o = object_of(s, m);
    /* A return address: the call is the instruction before it. */
    Dwarf_Addr pc = f->offset ? f->offset - 1 : 0;
    if (o->mod) {
        scope_names(r, o->mod, pc, f);
        if (!f->function[0]) {
            const char *sym = symbol_name(r, o->mod, pc);
            if (sym)
                f->function = sym;
        }
        Dwfl_Line *line = dwfl_module_getsrc(o->mod, pc);
        int lineno = 0;
        const char *src = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
        if (src) {
            f->file = report_intern(r, src);
            f->line = lineno;
        }
    }
}

static void symbolizer_init(struct symbolizer *s, char *const *debug_dirs, size_t ndirs)
{
    s->dirs = debug_dirs;
    s->ndirs = ndirs;
    size_t len = sizeof "-:.debug::/usr/lib/debug";
    for (size_t i = 0; i < ndirs; i++)
        len += strlen(debug_dirs[i]) + 1;
    s->debuginfo_path = xcalloc(len, 1);
    strcpy(s->debuginfo_path, "-:.debug");
    for (size_t i = 0; i < ndirs; i++)
        strcat(strcat(s->debuginfo_path, ":"), debug_dirs[i]);
    strcat(s->debuginfo_path, ":/usr/lib/debug");
    s->callbacks.find_elf = dwfl_build_id_find_elf;
    s->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
    s->callbacks.debuginfo_path = &s->debuginfo_path;
    elf_version(EV_CURRENT);
}

static void symbolizer_end(struct symbolizer *s)
{
    for (size_t i = 0; i < s->nobjects; i++)
        if (s->objects[i].dwfl)
            dwfl_end(s->objects[i].dwfl);
    free(s->objects);
    free(s->debuginfo_path);
}
#else
struct symbolizer {
    struct report *r;
};
static void symbolizer_init(struct symbolizer *s, char *const *debug_dirs, size_t ndirs)
{
    (void)s, (void)debug_dirs, (void)ndirs;
}
static void lookup(struct symbolizer *s, const struct module_entry *m, struct site_frame *f)
{
    (void)s, (void)m, (void)f;
}
static void symbolizer_end(struct symbolizer *s) { (void)s; }
#endif

static void symbolize_frame(struct symbolizer *s, const struct module_entry *m, struct site_frame *f)
{
    f->library = report_intern(s->r, path_base(m->path));
    f->offset = f->addr - m->base;
    lookup(s, m, f);
    if (!f->function[0] && f->recorded[0]) { /* the object is not here: the shim's name */
        char *plain = demangle(f->recorded);
        f->function = report_intern(s->r, plain ? plain : f->recorded);
        free(plain);
    }
    if (!f->function[0]) {
        char buf[4096 + 32];
        snprintf(buf, sizeof buf, "%s+0x%llx", f->library, (unsigned long long)f->offset);
        f->function = report_intern(s->r, buf);
    }
}

static const struct module_entry *module_of(const struct rank_file *file, uint64_t addr)
{
    for (size_t i = 0; i < file->nmodules; i++)
        if (addr >= file->modules[i].start && addr < file->modules[i].end)
            return &file->modules[i];
    return NULL;
}

void report_symbolize(struct report *r, char *const *debug_dirs, size_t ndirs)
{
    struct symbolizer s = {.r = r};
    symbolizer_init(&s, debug_dirs, ndirs);

    for (size_t i = 0; i < r->nfiles; i++) {
        struct rank_file *file = &r->files[i];
        for (size_t j = 0; j < file->nsites; j++)
            for (size_t k = 0; k < file->sites[j].nframes; k++) {
                struct site_frame *f = &file->sites[j].frames[k];
                if (f->python)
                    continue; /* named by the interpreter */
                const struct module_entry *m = module_of(file, f->addr);
                if (m) {
                    symbolize_frame(&s, m, f);
                } else {
                    char buf[32];
                    snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)f->addr);
                    f->function = report_intern(r, buf);
                }
            }
    }
    symbolizer_end(&s);
}
