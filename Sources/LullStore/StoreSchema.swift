import Foundation
import GRDB

/// Versioned migrations. Each one is append-only: never edit a migration that has shipped.
enum StoreSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: jobs and events") { db in
            try db.execute(
                sql: """
                    CREATE TABLE jobs (
                        id INTEGER PRIMARY KEY,
                        owner INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        state TEXT NOT NULL,
                        class TEXT NOT NULL,
                        label TEXT,
                        spec TEXT NOT NULL,
                        payload BLOB,
                        created_at REAL NOT NULL,
                        updated_at REAL NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        bytes_done INTEGER,
                        bytes_total INTEGER,
                        result TEXT,
                        failure TEXT
                    );
                    CREATE INDEX jobs_by_state ON jobs(state, id);
                    CREATE INDEX jobs_by_owner ON jobs(owner, id);
                    CREATE INDEX jobs_by_label ON jobs(label, id) WHERE label IS NOT NULL;
                    CREATE TABLE events (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        job_id INTEGER NOT NULL,
                        owner INTEGER NOT NULL,
                        time REAL NOT NULL,
                        type TEXT NOT NULL,
                        state TEXT NOT NULL,
                        detail TEXT
                    );
                    CREATE INDEX events_by_owner ON events(owner, seq);
                    CREATE INDEX events_by_job ON events(job_id, seq);
                    """
            )
        }
        migrator.registerMigration("v2: resume state, retry time, fetch validators") { db in
            try db.execute(
                sql: """
                    ALTER TABLE jobs ADD COLUMN resume TEXT;
                    ALTER TABLE jobs ADD COLUMN retry_at REAL;
                    CREATE TABLE fetch_validators (
                        owner INTEGER NOT NULL,
                        url TEXT NOT NULL,
                        destination TEXT NOT NULL,
                        etag TEXT,
                        last_modified TEXT,
                        updated_at REAL NOT NULL,
                        PRIMARY KEY (owner, url, destination)
                    );
                    """
            )
        }
        migrator.registerMigration("v3: scheduling columns") { db in
            // What the scheduler needs at start-up, readable without decoding every spec.
            try db.execute(
                sql: """
                    ALTER TABLE jobs ADD COLUMN host TEXT NOT NULL DEFAULT '';
                    ALTER TABLE jobs ADD COLUMN network TEXT;
                    ALTER TABLE jobs ADD COLUMN requires_ac INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE jobs ADD COLUMN min_battery REAL;
                    ALTER TABLE jobs ADD COLUMN not_before REAL;
                    ALTER TABLE jobs ADD COLUMN deadline REAL;
                    ALTER TABLE jobs ADD COLUMN on_deadline TEXT;
                    ALTER TABLE jobs ADD COLUMN expected_down INTEGER;
                    ALTER TABLE jobs ADD COLUMN expected_up INTEGER;
                    """
            )
        }
        migrator.registerMigration("v4: completion hooks") { db in
            // on_complete_unit is also in the spec; the column lets the start-up query find the
            // hooks still due without decoding every spec.
            try db.execute(
                sql: """
                    ALTER TABLE jobs ADD COLUMN on_complete_unit TEXT;
                    ALTER TABLE jobs ADD COLUMN hook_ran_at REAL;
                    CREATE INDEX jobs_pending_hooks ON jobs(id)
                        WHERE on_complete_unit IS NOT NULL AND hook_ran_at IS NULL;
                    """
            )
        }
        migrator.registerMigration("v5: stops on lost conditions") { db in
            try db.execute(
                sql: """
                    ALTER TABLE jobs ADD COLUMN stops INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE jobs ADD COLUMN last_stop TEXT;
                    """
            )
        }
        migrator.registerMigration("v6: requires idle") { db in
            try db.execute(sql: "ALTER TABLE jobs ADD COLUMN requires_idle INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v7: finished jobs by end time") { db in
            // The retention sweep's range: only ended jobs, by when they ended (a terminal job's
            // `updated_at` no longer changes). Its WHERE must stay `SQLiteJobStore.ended`'s.
            try db.execute(
                sql: """
                    CREATE INDEX jobs_ended ON jobs(updated_at)
                        WHERE state IN ('succeeded', 'failed', 'cancelled', 'expired')
                    """
            )
        }
        migrator.registerMigration("v8: the file fetch validators were left with") { db in
            // Without them a row vouches for no file: the next fetch of it asks unconditionally.
            try db.execute(sql: "ALTER TABLE fetch_validators ADD COLUMN file TEXT")
            try db.execute(sql: "ALTER TABLE fetch_validators ADD COLUMN sha256 TEXT")
        }
        migrator.registerMigration("v9: job counts by class and state") { db in
            // Kept by triggers in the same transaction as every change of a job, so that
            // `/metrics` and `GET /v1/status` read a few rows instead of counting every job ever
            // kept (a scan of a million rows a scrape).
            try db.execute(
                sql: """
                    CREATE TABLE job_counts (
                        class TEXT NOT NULL,
                        state TEXT NOT NULL,
                        n INTEGER NOT NULL,
                        PRIMARY KEY (class, state)
                    ) WITHOUT ROWID;
                    INSERT INTO job_counts (class, state, n) SELECT class, state, COUNT(*) FROM jobs GROUP BY class, state;
                    CREATE TRIGGER job_counted AFTER INSERT ON jobs BEGIN
                        INSERT INTO job_counts (class, state, n) VALUES (NEW.class, NEW.state, 1)
                            ON CONFLICT (class, state) DO UPDATE SET n = n + 1;
                    END;
                    CREATE TRIGGER job_count_moved AFTER UPDATE OF class, state ON jobs
                        WHEN OLD.class IS NOT NEW.class OR OLD.state IS NOT NEW.state
                    BEGIN
                        UPDATE job_counts SET n = n - 1 WHERE class = OLD.class AND state = OLD.state;
                        INSERT INTO job_counts (class, state, n) VALUES (NEW.class, NEW.state, 1)
                            ON CONFLICT (class, state) DO UPDATE SET n = n + 1;
                    END;
                    CREATE TRIGGER job_uncounted AFTER DELETE ON jobs BEGIN
                        UPDATE job_counts SET n = n - 1 WHERE class = OLD.class AND state = OLD.state;
                    END;
                    """
            )
        }
        TestMigration.register(in: &migrator, environment: ProcessInfo.processInfo.environment)
        return migrator
    }
}
