#if SensorLink
import Capture
import PostgresNIO

/// The tables, created and upgraded by numbered migrations, each applied
/// once in its own transaction and recorded in `tscope_schema`. Many
/// sensors and sessions share one database; frames are stored as in the
/// SQLite store (`power`: little-endian IEEE-754 binary32 per bin, exact).
///
/// Layout 2 adds what lets `occupancy` count inside the server (see
/// `PostgresOccupancy`): `frames.power_db`, the same values as a `real[]`
/// (float4 is binary32: exact, NaN kept), which `unnest` walks in C; and
/// `tscope_power_db(bytea)`, an IMMUTABLE SQL function decoding `power` for
/// frames stored before layout 2 (their `power_db` is NULL: the migration
/// does not rewrite a month of frames). Measured on 20 000 frames of 1 000
/// bins (Benchmarks/README.md, "Occupancy inside PostgreSQL"): counting over
/// `real[]` runs at about 5 M bins/s per core; decoding the bytea in SQL
/// (get_byte per byte, the float rebuilt from its bits) at about 0.3 M
/// bins/s, in SQL or PL/pgSQL alike; comparing the float32 bit patterns as
/// integers for a fixed threshold (no decode) needs the same get_byte calls
/// and ran at 0.07 M bins/s. The cost of the column: 4 more bytes per bin stored.
enum PostgresSchema {
    static let migrations: [String] = [
        // 1: sensors, sessions, frames, gaps
        """
        CREATE TABLE sensors (
            id bigserial PRIMARY KEY,
            serial text NOT NULL,
            device text NOT NULL,
            UNIQUE (serial, device));
        CREATE TABLE sessions (
            id bigserial PRIMARY KEY,
            sensor_id bigint NOT NULL REFERENCES sensors (id),
            started_at double precision NOT NULL,
            stopped_at double precision,
            label text,
            operator text,
            band_low_hz double precision,
            band_high_hz double precision,
            bin_width_hz double precision,
            requested_frame_rate double precision,
            achieved_frame_rate double precision,
            frames bigint NOT NULL DEFAULT 0,
            dropped_blocks bigint NOT NULL DEFAULT 0,
            dropped_frames bigint NOT NULL DEFAULT 0,
            bad_blocks bigint NOT NULL DEFAULT 0,
            gains text,
            tscope_version text,
            utc_offset_seconds integer);
        CREATE INDEX sessions_by_label ON sessions (label, started_at);
        CREATE TABLE frames (
            id bigserial PRIMARY KEY,
            session_id bigint NOT NULL REFERENCES sessions (id),
            "timestamp" double precision NOT NULL,
            start_hz double precision NOT NULL,
            bin_width_hz double precision NOT NULL,
            bin_count integer NOT NULL,
            power bytea NOT NULL);
        CREATE INDEX frames_by_session_time ON frames (session_id, "timestamp", id);
        CREATE TABLE gaps (
            session_id bigint NOT NULL REFERENCES sessions (id),
            from_timestamp double precision NOT NULL,
            to_timestamp double precision NOT NULL,
            reason text NOT NULL);
        """,
        // 2: occupancy inside the server. Each statement is one (the migration splits on semicolons: none
        // inside a function body). The decode rebuilds a binary32 from its bits in float8, exactly:
        // sign × (mantissa + 2^23) × 2^(exponent − 150), subnormals mantissa × 2^−149, exponent 255 ∞ or NaN.
        """
        ALTER TABLE frames ADD COLUMN power_db real[];
        CREATE FUNCTION tscope_float32(bits integer) RETURNS real LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
            SELECT ((CASE WHEN bits < 0 THEN -1.0 ELSE 1.0 END)::float8 * CASE (bits >> 23) & 255
                WHEN 255 THEN CASE WHEN bits & 8388607 = 0 THEN 'Infinity'::float8 ELSE 'NaN'::float8 END
                WHEN 0 THEN (bits & 8388607)::float8 * 2.0::float8 ^ -149
                ELSE ((bits & 8388607) + 8388608)::float8 * 2.0::float8 ^ (((bits >> 23) & 255) - 150) END)::real
        $$;
        CREATE FUNCTION tscope_power_db(power bytea) RETURNS real[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
            SELECT coalesce(array_agg(tscope_float32(get_byte(power, 4 * i) | (get_byte(power, 4 * i + 1) << 8)
                | (get_byte(power, 4 * i + 2) << 16) | (get_byte(power, 4 * i + 3) << 24)) ORDER BY i), '{}')
            FROM generate_series(0, length(power) / 4 - 1) AS i
        $$;
        """,
    ]

    /// Brings the database to the newest layout; another writer doing the
    /// same at once waits on the advisory lock.
    static func migrate(_ link: PostgresLink) throws(CaptureError) {
        try link.query("SELECT pg_advisory_lock(7403354)")
        defer { _ = try? link.query("SELECT pg_advisory_unlock(7403354)") }
        try link.query("CREATE TABLE IF NOT EXISTS tscope_schema (version integer NOT NULL)")
        var applied = 0
        for row in try link.query("SELECT coalesce(max(version), 0) FROM tscope_schema") {
            applied = (try? row.decode(Int.self)) ?? 0
        }
        guard applied <= migrations.count else {
            throw CaptureError(file: link.location.name,
                               "the database has layout \(applied), newer than this tscope knows (\(migrations.count))")
        }
        for (index, migration) in migrations.enumerated() where index + 1 > applied {
            try link.query("BEGIN")
            do {
                for statement in migration.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) })
                where !statement.isEmpty {
                    try link.query(PostgresQuery(unsafeSQL: statement))
                }
                try link.query("INSERT INTO tscope_schema (version) VALUES (\(index + 1))")
                try link.query("COMMIT")
            } catch {
                _ = try? link.query("ROLLBACK")
                throw error
            }
        }
    }
}
#endif
