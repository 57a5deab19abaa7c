import RedisClient

/// The Lua scripts behind the shared feed. Each runs atomically in Redis, which is what makes
/// the lease, the fence and the re-seed race-free. Key names are built from the prefix by the
/// caller (one Redis, not Redis Cluster: `join` builds the snapshot key from `ARGV[1]`).

enum FeedScripts {
    /// Take the reload lease unless Redis holds no feed (restarted empty, not re-seeded yet), a
    /// re-seed window is open or someone holds it.
    /// A lease already holding our token is ours to renew: an instance runs one reload at a
    /// time, so it can only be left over from an attempt whose reply timed out (Redis frozen,
    /// then resumed and ran the queued script).
    /// KEYS: lease, version, reloads, settle, epoch. ARGV: token, lease ms.
    /// Returns `{1, reload number, version, epoch}` or `{0, ms to wait, version, epoch}`.
    static let acquire = RedisScript(
        """
        local raw = redis.call('get', KEYS[2])
        local e = redis.call('get', KEYS[5]) or ''
        if not raw then return {0, 50, 0, e} end
        local v = tonumber(raw)
        local settle = redis.call('pttl', KEYS[4])
        if settle > 0 then return {0, settle, v, e} end
        local holder = redis.call('get', KEYS[1])
        if holder == ARGV[1] then
          redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
          return {1, redis.call('incr', KEYS[3]), v, e}
        end
        if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
          return {1, redis.call('incr', KEYS[3]), v, e}
        end
        return {0, redis.call('pttl', KEYS[1]), v, e}
        """)

    /// The fenced commit: only the lease holder, only on top of the version it read, only in the
    /// epoch it read it in.
    /// KEYS: lease, version, snap:<base+1>, snap:<base>, epoch. ARGV: token, base, snapshot JSON,
    /// channel, reload number, ms to keep the previous snapshot, epoch.
    /// Returns `{1, new version}` or `{0, version in Redis}` (refused).
    static let commit = RedisScript(
        """
        local v = tonumber(redis.call('get', KEYS[2]) or '0')
        if redis.call('get', KEYS[1]) ~= ARGV[1] then return {0, v} end
        if v ~= tonumber(ARGV[2]) or redis.call('get', KEYS[5]) ~= ARGV[7] then
          redis.call('del', KEYS[1])
          return {0, v}
        end
        local n = redis.call('incr', KEYS[2])
        redis.call('set', KEYS[3], ARGV[3])
        redis.call('pexpire', KEYS[4], ARGV[6])
        redis.call('publish', ARGV[4], 's' .. ARGV[5] .. ' ' .. ARGV[7] .. ' ' .. ARGV[3])
        redis.call('del', KEYS[1])
        return {1, n}
        """)

    /// Release the lease without a new version (unchanged or failed reload) and tell waiters.
    /// KEYS: lease. ARGV: token, channel, message. Returns 1 if the lease was still ours.
    static let release = RedisScript(
        """
        if redis.call('get', KEYS[1]) == ARGV[1] then
          redis.call('del', KEYS[1])
          redis.call('publish', ARGV[2], ARGV[3])
          return 1
        end
        return 0
        """)

    /// Join the cluster (startup) or re-join (after a reconnect).
    /// - Redis lost the feed (no version or epoch: restarted empty; or our own epoch at a version
    ///   below ours: restored from an older copy): a **new epoch** (`ARGV[8]`) begins with our
    ///   snapshot, announced on the channel. On a re-join a settle window opens, holding the
    ///   epoch we came from: no lease is granted in it, and an instance of that same epoch with a
    ///   newer version raises the new epoch to it (numbers above the current one are unused in
    ///   the new epoch, and within the old one a number named one snapshot).
    /// - Otherwise we adopt what Redis holds: its epoch, its newest version and snapshot. An
    ///   instance from an older epoch never writes its own snapshot under a number of the new one.
    /// KEYS: version, epoch, settle. ARGV: snapshot key prefix, our version, our snapshot JSON,
    /// our epoch, rejoin (0/1), settle ms, channel, the new epoch if one begins.
    /// Returns `{version, epoch, snapshot JSON or nil, seeded (0/1)}`.
    static let join = RedisScript(
        """
        local v = tonumber(redis.call('get', KEYS[1]) or '')
        local e = redis.call('get', KEYS[2])
        local mine = tonumber(ARGV[2])
        if not v or not tonumber(e or '') or (e == ARGV[4] and mine > v) then
          e = ARGV[8]
          redis.call('set', KEYS[2], e)
          redis.call('set', KEYS[1], mine)
          redis.call('set', ARGV[1] .. mine, ARGV[3])
          if ARGV[5] == '1' then redis.call('set', KEYS[3], ARGV[4], 'PX', ARGV[6]) end
          redis.call('publish', ARGV[7], 's0 ' .. e .. ' ' .. ARGV[3])
          return {mine, e, ARGV[3], 1}
        end
        if mine > v and redis.call('get', KEYS[3]) == ARGV[4] then
          redis.call('set', KEYS[1], mine)
          redis.call('set', ARGV[1] .. mine, ARGV[3])
          redis.call('publish', ARGV[7], 's0 ' .. e .. ' ' .. ARGV[3])
          return {mine, e, ARGV[3], 1}
        end
        return {v, e, redis.call('get', ARGV[1] .. v), 0}
        """)
}
