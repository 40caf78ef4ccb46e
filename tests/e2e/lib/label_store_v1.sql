-- A label store as the first schema version wrote it (runs, members, labels; no profile
-- texts, margins or reviews): what the upgrade test and bench/review_pages.py start from.
CREATE TABLE store_info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO store_info VALUES ('schema_version', '1');
CREATE TABLE runs (run_id TEXT PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT, artifact_version TEXT NOT NULL,
  artifact_fingerprint TEXT NOT NULL, threshold DOUBLE PRECISION NOT NULL, options TEXT NOT NULL, profiles BIGINT,
  judged BIGINT, skipped_unchanged BIGINT, errors BIGINT, rounds BIGINT, pairs_judged BIGINT, accepted BIGINT);
CREATE TABLE members (member TEXT PRIMARY KEY, input_hash TEXT NOT NULL, artifact_version TEXT NOT NULL,
  threshold DOUBLE PRECISION NOT NULL, rounds BIGINT NOT NULL, stop_reason TEXT NOT NULL, run_id TEXT NOT NULL,
  labeled_at TEXT NOT NULL);
CREATE TABLE labels (member TEXT NOT NULL, qualification TEXT NOT NULL, name TEXT NOT NULL,
  score DOUBLE PRECISION NOT NULL, label SMALLINT NOT NULL, round BIGINT NOT NULL, rank BIGINT NOT NULL,
  artifact_version TEXT NOT NULL, threshold DOUBLE PRECISION NOT NULL, run_id TEXT NOT NULL, labeled_at TEXT NOT NULL,
  PRIMARY KEY (member, qualification));
