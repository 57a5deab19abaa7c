/// Who asked for the reload running in this task: a person (a pull, the Refresh button,
/// `POST /api/refresh`), or the schedule. A task-local value, so it reaches the river through the
/// store's reload without a parameter (the store's `Task { … }` inherits it); a pull that joins a
/// scheduled reload in flight shares that reload's answer.
public enum ReloadTrigger {
    /// True while the schedule's reload runs: only sources that are due are fetched.
    @TaskLocal public static var isScheduled = false
}
