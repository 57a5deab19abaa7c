// `image-bench ORIGINAL BOMB [ROUNDS]`: CPU time of one thumbnail (ORIGINAL → 160 px WebP, as
// /img/ makes it) and of refusing BOMB from its header, median of ROUNDS (default 30) after a
// warm-up. Prints one JSON object; bench/thumbnails.py runs it beside Pillow on the same files.
import Foundation
import Images

/// CPU seconds of the whole process (libvips' worker threads included).
func processCPU() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// The median CPU and wall milliseconds of `rounds` runs of `work`.
func measure(rounds: Int, _ work: () -> Void) -> (cpu: Double, wall: Double) {
    work()
    var cpu: [Double] = []
    var wall: [Double] = []
    for _ in 0..<rounds {
        let startCPU = processCPU()
        let startWall = ContinuousClock.now
        work()
        cpu.append((processCPU() - startCPU) * 1000)
        let elapsed = (ContinuousClock.now - startWall).components
        wall.append(Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15)
    }
    return (cpu.sorted()[rounds / 2], wall.sorted()[rounds / 2])
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, let original = FileManager.default.contents(atPath: arguments[1]),
    let bomb = FileManager.default.contents(atPath: arguments[2])
else {
    FileHandle.standardError.write(Data("usage: image-bench ORIGINAL BOMB [ROUNDS]\n".utf8))
    exit(2)
}
let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 30 : 30
let thumbnailer = Thumbnailer()
let originalBytes = [UInt8](original)
let bombBytes = [UInt8](bomb)
var size = 0
let resize = measure(rounds: rounds) {
    size = (try? thumbnailer.thumbnail(of: originalBytes, side: 160, format: .webp))?.bytes.count ?? -1
}
var refused = false
let refusal = measure(rounds: rounds) {
    do {
        _ = try thumbnailer.thumbnail(of: bombBytes, side: 160, format: .webp)
    } catch ImageError.tooManyPixels {
        refused = true
    } catch {
        refused = false
    }
}
var avifSize = 0
var avifError = ""
let avif = measure(rounds: rounds) {
    do {
        avifSize = try thumbnailer.thumbnail(of: originalBytes, side: 160, format: .avif).bytes.count
    } catch {
        avifSize = -1
        avifError = "\(error)"
    }
}
if !avifError.isEmpty { FileHandle.standardError.write(Data("image-bench: AVIF: \(avifError)\n".utf8)) }
print(
    """
    {"resize_cpu_ms": \(resize.cpu), "resize_wall_ms": \(resize.wall), "webp_bytes": \(size), \
    "avif_cpu_ms": \(avif.cpu), "avif_bytes": \(avifSize), \
    "bomb_cpu_ms": \(refusal.cpu), "bomb_wall_ms": \(refusal.wall), "bomb_refused": \(refused)}
    """)
