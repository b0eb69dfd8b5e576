import Capture
import PostgresNIO

/// The tables, created and upgraded by numbered migrations, each applied
/// once in its own transaction and recorded in `tscope_schema`. Many
/// sensors and sessions share one database; frames are stored as in the
/// SQLite store (`power`: little-endian IEEE-754 binary32 per bin, exact).
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
