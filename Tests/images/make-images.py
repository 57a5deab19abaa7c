#!/usr/bin/env python3
"""Writes the image fixtures of the thumbnail tests into the folder named as the argument.

Made at test time (Pillow), so the repository holds no binary pictures: a noisy 4000x3000 JPEG,
a JPEG whose EXIF says "rotate 90° clockwise" (orientation 6) and carries an Artist tag, PNG,
WebP, AVIF, a 3-frame animated GIF, an SVG, a PNG whose header claims 60000x60000 pixels with
almost no data, a truncated JPEG, and a 9 MiB JPEG (over the fetch limit)."""
import io
import os
import random
import struct
import sys
import zlib

from PIL import Image

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
random.seed(7)


def photo(width, height):
    """A gradient with noise: compresses like a photograph, not like a flat colour."""
    image = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    noise = Image.effect_noise((width, height), 40).convert("RGB")
    return Image.blend(image, noise, 0.35)


def save(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def encoded(image, fmt, **options):
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


wide = photo(640, 480)
save("photo.jpg", encoded(wide, "JPEG", quality=85))
save("photo.png", encoded(wide, "PNG"))
save("photo.webp", encoded(wide, "WEBP", quality=80))
save("photo.avif", encoded(wide, "AVIF", quality=60))
save("large.jpg", encoded(photo(4000, 3000), "JPEG", quality=85))
# A 4000x3000 photo of more usual weight (~1.5 MB): the noise lighter, as in a real picture.
smooth = Image.blend(Image.linear_gradient("L").resize((4000, 3000)).convert("RGB"),
                     Image.effect_noise((4000, 3000), 12).convert("RGB"), 0.35)
save("large-typical.jpg", encoded(smooth, "JPEG", quality=85))

# Black left half, white right half; the same pixels with EXIF orientation 6 ("turn 90°
# clockwise to show") must come out black on top, white below. It also carries a planted
# Artist tag, which no thumbnail may keep.
halves = Image.new("RGB", (640, 480), (255, 255, 255))
halves.paste((0, 0, 0), (0, 0, 320, 480))
save("halves.jpg", encoded(halves, "JPEG", quality=90))
exif = Image.Exif()
exif[0x0112] = 6
exif[0x013B] = "Planted Artist"
save("rotated.jpg", encoded(halves, "JPEG", quality=90, exif=exif.tobytes()))

frames = [Image.new("RGB", (100, 80), colour) for colour in ((255, 0, 0), (0, 255, 0), (0, 0, 255))]
gif = io.BytesIO()
frames[0].save(gif, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
save("animated.gif", gif.getvalue())

save("drawing.svg", b'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">'
     b'<rect width="100" height="100" fill="red"/></svg>')
save("page.html", b"<!doctype html><html><body><img src=x></body></html>")


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


# A valid PNG signature and IHDR claiming 60000x60000 RGB, then one small IDAT: a decompression
# bomb's header, refused from the header alone.
ihdr = struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0)
bomb = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 4096)) + chunk(b"IEND", b"")
save("bomb.png", bomb)

whole = encoded(wide, "JPEG", quality=85)
save("truncated.jpg", whole[: len(whole) // 2])

# Over 8 MiB: random pixels do not compress.
noise = Image.frombytes("RGB", (2400, 2000), random.randbytes(2400 * 2000 * 3))
big = encoded(noise, "JPEG", quality=100)
assert len(big) > 8 * 1024 * 1024, len(big)
save("oversized.jpg", big)
