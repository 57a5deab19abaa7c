#ifndef PULLREFRESH_VIPS_SHIM_H
#define PULLREFRESH_VIPS_SHIM_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gmodule.h>
#include <vips/vips.h>

/* libvips' API is variadic (name/value option lists ended by NULL), which Swift does not import,
   and VIPS_INIT is a macro: one fixed-signature wrapper per call the Images module makes. */

/* The folder of the libvips shared library mapped into this process, from /proc/self/maps
   (dladdr would need _GNU_SOURCE, which changes fd_set's field names and clashes with the other
   C modules); NULL if not found. Free with g_free. */
static inline gchar *pullrefresh_vips_library_folder(void) {
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return NULL;
    char line[4096];
    gchar *folder = NULL;
    while (!folder && fgets(line, sizeof line, maps)) {
        char *path = strchr(line, '/');
        if (!path || !strstr(path, "/libvips.so")) continue;
        path[strcspn(path, "\n")] = 0;
        folder = g_path_get_dirname(path);
    }
    fclose(maps);
    return folder;
}

/* VIPS_INIT's ABI check, then vips_init, without libvips' loadable modules but the HEIF one.
   vips_init would load every module next to libvips (ImageMagick, poppler, OpenSlide, JXL and
   HEIF on Debian), about 6 MiB of resident memory for loaders that are blocked anyway: VIPSHOME
   points it at a folder that does not exist for the call, then only vips-heif.so (AVIF/HEIF
   in and out) is opened from libvips' module folder. Returns 0 on success; *heif says whether
   the HEIF module loaded. Call before other threads run (setenv). */
static inline int pullrefresh_vips_init(const char *argv0, int *heif) {
    const char *previous = getenv("VIPSHOME");
    char *saved = previous ? g_strdup(previous) : NULL;
    setenv("VIPSHOME", "/nonexistent-pullrefresh-vips-home", 1);
    int status = VIPS_INIT(argv0);
    if (saved) {
        setenv("VIPSHOME", saved, 1);
        g_free(saved);
    } else {
        unsetenv("VIPSHOME");
    }
    *heif = 0;
    if (status != 0) return status;
    /* The module folder beside the libvips this process mapped. (vips_guess_libdir would give
       the fake VIPSHOME's: libvips caches its prefix.) */
    gchar *folder = pullrefresh_vips_library_folder();
    if (folder) {
        gchar *path = g_strdup_printf("%s/vips-modules-%d.%d/vips-heif.so", folder, VIPS_MAJOR_VERSION,
                                      VIPS_MINOR_VERSION);
        GModule *module = g_module_open(path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
        if (module) {
            g_module_make_resident(module);
            *heif = 1;
        }
        g_free(path);
        g_free(folder);
    }
    return 0;
}

/* Only these loaders may run (the decoders a feed's pictures need); every other loader, SVG,
   PDF, TIFF and ImageMagick among them, is blocked. */
static inline void pullrefresh_vips_allow_only_photo_loaders(void) {
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoad", TRUE);
    vips_operation_block_set("VipsForeignLoadJpeg", FALSE);
    vips_operation_block_set("VipsForeignLoadPng", FALSE);
    vips_operation_block_set("VipsForeignLoadWebp", FALSE);
    vips_operation_block_set("VipsForeignLoadNsgif", FALSE);
    vips_operation_block_set("VipsForeignLoadHeif", FALSE);
}

/* The header only (sequential access, nothing decoded): size and page count. Returns 0 on
   success. */
static inline int pullrefresh_vips_header(const void *buf, size_t len, int *width, int *height, int *pages) {
    VipsImage *image = vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!image) return -1;
    *width = vips_image_get_width(image);
    *height = vips_image_get_height(image);
    *pages = vips_image_get_n_pages(image);
    g_object_unref(image);
    return 0;
}

/* Shrink-on-load thumbnail to fit width x height, never enlarged, cropped as `crop` says,
   EXIF orientation applied. `fail_on=truncated` goes through the load options because
   thumbnail_buffer ignores its own fail_on in 8.14 (libvips#5195). No "export_profile": with
   it, a crafted GIF (fuzz/regressions/image/gif-frame-past-the-screen: a 65292-pixel-wide frame
   on a 12x10 screen) overflows the heap inside lcms2's transform in 8.14.1; without it the
   pixels are taken as sRGB (an embedded profile is dropped with the metadata). Lazy: `buf`
   must stay valid and unchanged until the image is saved and unreffed. */
static inline int pullrefresh_vips_thumbnail(const void *buf, size_t len, int width, int height,
                                             VipsInteresting crop, VipsImage **out) {
    return vips_thumbnail_buffer((void *)buf, len, out, width, "height", height, "size", VIPS_SIZE_DOWN,
                                 "crop", crop, "option_string", "fail_on=truncated", NULL);
}

static inline gboolean pullrefresh_vips_is_metadata(const char *name) {
    return strncmp(name, "exif-", 5) == 0 || strcmp(name, "xmp-data") == 0 || strcmp(name, "iptc-data") == 0 ||
           strcmp(name, "icc-profile-data") == 0;
}

/* A copy without EXIF, XMP, IPTC or ICC fields: webpsave_buffer in 8.14.1 ignores "strip"
   (libvips#3340). NULL on failure; release with g_object_unref. */
static inline VipsImage *pullrefresh_vips_strip_copy(VipsImage *in) {
    VipsImage *copy = NULL;
    if (vips_copy(in, &copy, NULL)) return NULL;
    gchar **fields = vips_image_get_fields(copy);
    for (int i = 0; fields[i]; i++) {
        if (pullrefresh_vips_is_metadata(fields[i])) vips_image_remove(copy, fields[i]);
    }
    g_strfreev(fields);
    return copy;
}

/* Savers; free *buf with g_free. webpsave in 8.14.1 still writes an EXIF chunk it builds from
   the header (orientation, resolution: 186 bytes) into a stripped copy: the Images module drops
   it from the RIFF container after the save (WebPMetadata.swift). */
static inline int pullrefresh_vips_webp(VipsImage *in, int quality, void **buf, size_t *len) {
    return vips_webpsave_buffer(in, buf, len, "Q", quality, "strip", TRUE, NULL);
}

static inline int pullrefresh_vips_jpeg(VipsImage *in, int quality, void **buf, size_t *len) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, "strip", TRUE, "optimize_coding", TRUE,
                                "interlace", FALSE, NULL);
}

static inline int pullrefresh_vips_avif(VipsImage *in, int quality, int effort, void **buf, size_t *len) {
    return vips_heifsave_buffer(in, buf, len, "Q", quality, "effort", effort, "strip", TRUE, "compression",
                                VIPS_FOREIGN_HEIF_COMPRESSION_AV1, NULL);
}

static inline void pullrefresh_vips_drop_message(const gchar *domain, GLogLevelFlags level, const gchar *message,
                                                 gpointer context) {
    (void)domain; (void)level; (void)message; (void)context;
}

/* libvips reports damaged input as GLib warnings on stderr, one per bad row (60,000 for one
   crafted PNG): they are dropped, and the failure is judged by return codes instead. */
static inline void pullrefresh_vips_drop_warnings(void) {
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE, pullrefresh_vips_drop_message, NULL);
}

/* The first band's value at (x, y) of an encoded image, for tests that look at pixels. */
static inline int pullrefresh_vips_point(const void *buf, size_t len, int x, int y, double *value) {
    VipsImage *image = vips_image_new_from_buffer(buf, len, "", NULL);
    if (!image) return -1;
    double *vector = NULL;
    int count = 0;
    int status = vips_getpoint(image, &vector, &count, x, y, NULL);
    if (status == 0 && count > 0) *value = vector[0];
    g_free(vector);
    g_object_unref(image);
    return status == 0 && count > 0 ? 0 : -1;
}

/* The loader libvips would pick for these bytes, e.g. "VipsForeignLoadJpegBuffer", or NULL. */
static inline const char *pullrefresh_vips_loader(const void *buf, size_t len) {
    return vips_foreign_find_load_buffer(buf, len);
}

#endif
