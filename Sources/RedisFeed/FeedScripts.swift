/// The Lua scripts behind the shared feed. Each runs atomically in Redis, which is what makes
/// the lease, the fence and the re-seed race-free. Key names are built from the prefix by the
/// caller (one Redis, not Redis Cluster: `join` builds the snapshot key from `ARGV[1]`).
enum FeedScripts {
    /// Take the reload lease unless Redis holds no feed (restarted empty, not re-seeded yet), a
    /// re-seed window is open or someone holds it.
    /// A lease already holding our token is ours to renew: an instance runs one reload at a
    /// time, so it can only be left over from an attempt whose reply timed out (Redis frozen,
    /// then resumed and ran the queued script).
    /// KEYS: lease, version, reloads, settle. ARGV: token, lease ms.
    /// Returns `{1, reload number, version}` or `{0, ms to wait, version}`.
    static let acquire = RedisScript(
        """
        local raw = redis.call('get', KEYS[2])
        if not raw then return {0, 50, 0} end
        local v = tonumber(raw)
        local settle = redis.call('pttl', KEYS[4])
        if settle > 0 then return {0, settle, v} end
        local holder = redis.call('get', KEYS[1])
        if holder == ARGV[1] then
          redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
          return {1, redis.call('incr', KEYS[3]), v}
        end
        if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
          return {1, redis.call('incr', KEYS[3]), v}
        end
        return {0, redis.call('pttl', KEYS[1]), v}
        """)

    /// The fenced commit: only the lease holder, and only on top of the version it read.
    /// KEYS: lease, version, snap:<base+1>, snap:<base>. ARGV: token, base, snapshot JSON,
    /// channel, reload number, ms to keep the previous snapshot.
    /// Returns `{1, new version}` or `{0, version in Redis}` (refused).
    static let commit = RedisScript(
        """
        local v = tonumber(redis.call('get', KEYS[2]) or '0')
        if redis.call('get', KEYS[1]) ~= ARGV[1] then return {0, v} end
        if v ~= tonumber(ARGV[2]) then
          redis.call('del', KEYS[1])
          return {0, v}
        end
        local n = redis.call('incr', KEYS[2])
        redis.call('set', KEYS[3], ARGV[3])
        redis.call('pexpire', KEYS[4], ARGV[6])
        redis.call('publish', ARGV[4], 's' .. ARGV[5] .. ' ' .. ARGV[3])
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

    /// Join the cluster (startup) or re-join (after a reconnect): raise the version to ours if
    /// Redis has less (restarted empty), never lowering it and never overwriting a stored
    /// snapshot; keep the cluster's cache tag. A re-join that finds Redis empty opens a short
    /// settle window in which no lease is granted, so every live instance re-seeds its newest
    /// version before anyone commits on top.
    /// KEYS: version, epoch, settle. ARGV: snapshot key prefix, our version, our snapshot JSON,
    /// our epoch, rejoin (0/1), settle ms, channel.
    /// Returns `{version, epoch, snapshot JSON or nil, seeded (0/1)}`.
    static let join = RedisScript(
        """
        local raw = redis.call('get', KEYS[1])
        local v = tonumber(raw or '0')
        if not raw and ARGV[5] == '1' then redis.call('set', KEYS[3], '1', 'PX', ARGV[6]) end
        local e = redis.call('get', KEYS[2])
        if not e then
          e = ARGV[4]
          redis.call('set', KEYS[2], e)
        end
        local mine = tonumber(ARGV[2])
        local seeded = 0
        if mine > v then
          redis.call('set', KEYS[1], mine)
          redis.call('set', ARGV[1] .. mine, ARGV[3], 'NX')
          redis.call('publish', ARGV[7], 's0 ' .. redis.call('get', ARGV[1] .. mine))
          v = mine
          seeded = 1
        end
        return {v, e, redis.call('get', ARGV[1] .. v), seeded}
        """)
}
