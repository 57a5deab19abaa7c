/// The release, in one place: `--version`, the startup line's metrics (`pullrefresh_build_info`).
enum PullRefreshVersion {
    static let current = "0.14.0"
}
