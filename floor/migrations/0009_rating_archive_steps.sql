-- The rating events' feed remembered over an archiver restart, and the pit's adjustments of a past gaming
-- day's sessions made in the archive (docs/ratings.md, floor/rating_feed.py, floor/rating_past.py).

-- What the feed last sent of each session ([hands, breaks, on_break, end, adjustments]; null: never sent), so
-- that the archiver started again sends `updated`, never a second `opened`.
ALTER TABLE rating_sessions ADD COLUMN sent jsonb;

-- Each pit's feed: its last message number, and the last adjustment made in the archive it published.
CREATE TABLE rating_feed (
    pit   text   PRIMARY KEY,                          -- '' for a pit with no name
    seq   bigint NOT NULL CHECK (seq >= 0),
    step  bigint NOT NULL DEFAULT 0 CHECK (step >= 0)
);

-- The pit's adjustments of a session of a gaming day gone, made in the archive (the table holds that day no
-- more): who sent it, the supervisor who signed it off, when, why, and the session's report before and after.
CREATE TABLE rating_steps (
    id          bigserial        PRIMARY KEY,
    table_name  text             NOT NULL,
    player      text             NOT NULL,            -- the card, in full
    start       double precision NOT NULL,            -- the session's identity with the two above
    at          timestamptz      NOT NULL DEFAULT now(),
    ts          double precision NOT NULL,            -- the step's time, as its adjustment's `at`
    sent_by     text             NOT NULL,            -- the pit boss signed in at /pit
    signed_off  text             NOT NULL,            -- the supervisor whose PIN signed it off
    reason      text,
    before      jsonb            NOT NULL,
    after       jsonb            NOT NULL,
    pit         text,
    request     text             NOT NULL UNIQUE      -- the page's request id: a step sent again is applied once
);
CREATE INDEX rating_steps_session ON rating_steps (table_name, player, start);

-- How far the retention purged each table's sessions (`[pit] player_days`): a session asked for that started
-- by the latest start purged is said purged, not unknown.
CREATE TABLE rating_purges (
    table_name text             PRIMARY KEY,
    start      double precision NOT NULL              -- the latest start of a session purged
);
