import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One process per database file: an exclusive `fcntl` write lock on a sidecar file
/// (`<database>-lock`), held as long as the process lives and released by the kernel when it
/// ends however it ends (even `KILL`). A second process is told who holds it (`F_GETLK` reports
/// the PID).
///
/// The lock is on a file of its own, not the database: POSIX record locks belong to the process
/// and are dropped when it closes *any* descriptor of the file, which SQLite does whenever a
/// connection to it closes, and SQLite uses byte-range locks of the database file itself.
final class FileLock: Sendable {
    /// The sidecar's path.
    let path: String
    private let descriptor: Int32

    /// Takes the lock of `database`, creating the sidecar beside it.
    init(database: String) throws(StorageError) {
        path = database + "-lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            let folder = (database as NSString).deletingLastPathComponent
            throw StorageError(
                "database \(database): cannot create \(path) in \(folder.isEmpty ? "." : folder) (\(reason))")
        }
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        if fcntl(descriptor, F_SETLK, &request) != 0 {
            var holder = flock()
            holder.l_type = Int16(F_WRLCK)
            holder.l_whence = Int16(SEEK_SET)
            let asked = fcntl(descriptor, F_GETLK, &holder)
            close(descriptor)
            let who =
                asked == 0 && holder.l_type != Int16(F_UNLCK) ? "process \(holder.l_pid)" : "another process"
            throw StorageError("database \(database) is in use by \(who) (one pullrefresh per database file)")
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }
}
