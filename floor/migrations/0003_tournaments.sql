-- The tournaments the director ran (`croupier tournament` with `[director] db`): one row per
-- tournament, its record whole in `record` (the director's JSON), and beside it its places and its
-- levels with their times. Its hands are those the pit archived from its tables (`tables`) while it
-- ran: the view `tournament_hands` links them by table name and time span.
CREATE TABLE tournaments (
    id           text        PRIMARY KEY,           -- the director's state directory's tournament id
    name         text        NOT NULL,
    buy_in       bigint      NOT NULL,              -- into the pool, per entry (cents)
    fee          bigint      NOT NULL,              -- the house's, per entry, kept out of the pool
    entries      integer     NOT NULL,
    prize_pool   bigint      NOT NULL,
    started_at   timestamptz,
    finished_at  timestamptz NOT NULL,
    tables       text[]      NOT NULL,              -- the tables it used (the tournament file's tables.use)
    record       jsonb       NOT NULL,
    archived_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tournaments_name ON tournaments (name);

-- Every entry's finish: its place (the best of the places it shares), its prize (0 out of the money).
CREATE TABLE tournament_places (
    tournament text    NOT NULL REFERENCES tournaments ON DELETE CASCADE,
    player     text    NOT NULL,                    -- the entry's name (`name #2` for a re-entry)
    place      integer NOT NULL CHECK (place > 0),
    prize      bigint  NOT NULL CHECK (prize >= 0),
    shared     integer NOT NULL DEFAULT 1,          -- how many share the place and its prizes
    PRIMARY KEY (tournament, player)
);

-- Every stage of the schedule the clock reached: levels of play and breaks, when each began and ended.
CREATE TABLE tournament_levels (
    tournament  text        NOT NULL REFERENCES tournaments ON DELETE CASCADE,
    stage       integer     NOT NULL,               -- its place in the schedule, from 0
    level       integer,                            -- the level's number (null: a break)
    small_blind bigint,
    big_blind   bigint,
    ante        bigint,
    duration_s  integer     NOT NULL,
    began_at    timestamptz NOT NULL,
    ended_at    timestamptz NOT NULL,
    PRIMARY KEY (tournament, stage)
);

-- The hands of every tournament: its tables' hands that opened (or, lacking that, closed) while it ran.
CREATE VIEW tournament_hands AS
SELECT t.id AS tournament, h.table_name, h.hand, h.status, COALESCE(h.opened_at, h.closed_at) AS at
FROM tournaments t
JOIN hands h ON h.table_name = ANY (t.tables)
            AND COALESCE(h.opened_at, h.closed_at) BETWEEN t.started_at AND t.finished_at;
