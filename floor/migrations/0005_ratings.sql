-- Player ratings and dealer shifts (docs/ratings.md): each table's player and dealer events as its journal
-- holds them, the rating sessions and dealer shifts the archive folds from them and the hands
-- (floor/ratings.py), and how long the players' data is kept.

-- The journal's time of an open or close exactly (seconds since the epoch); null from a table older than it.
ALTER TABLE table_events ADD COLUMN ts double precision;

-- Each table's `player` (a card in, out, away, back at a seat) and `dealer` (a sign-in, a sign-out) events.
CREATE TABLE rating_events (
    table_name  text             NOT NULL,
    event       bigint           NOT NULL CHECK (event > 0),   -- the event's id in the table's journal
    kind        text             NOT NULL CHECK (kind IN ('player', 'dealer')),
    at          timestamptz      NOT NULL,
    ts          double precision NOT NULL,                     -- the journal's time exactly
    hand        integer,                                       -- the hand being prepared
    body        jsonb            NOT NULL,                     -- seat, action, card (in full), source; dealer, action
    pit         text,
    archived_at timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (table_name, event)
);

-- One player's rating session at one table: `report` is the very object `croupier ratings --state DIR
-- --json` prints for it (its comp at a reinvestment of 0: `croupier ratings --db` applies the rate).
CREATE TABLE rating_sessions (
    table_name     text             NOT NULL,
    player         text             NOT NULL,                  -- the player card's number, in full
    start          double precision NOT NULL,                  -- the journal's time the session started
    started_at     timestamptz      NOT NULL,
    ended_at       timestamptz,                                -- null while it is open
    hands          integer          NOT NULL,
    bets_total     bigint           NOT NULL,                  -- cents
    win            bigint           NOT NULL,                  -- cents, the player's side
    theo           text             NOT NULL,                  -- exact, a fraction of a cent
    theo_cents     bigint           NOT NULL,                  -- rounded half-even
    profile_sha256 text,
    report         jsonb            NOT NULL,
    pit            text,
    rated_at       timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (table_name, player, start)
);
CREATE INDEX rating_sessions_player ON rating_sessions (player);
CREATE INDEX rating_sessions_started ON rating_sessions (started_at);

-- One dealer's figures at one table over one opening of it (from the event after which it was folded, a
-- close or the journal's start, to the next close): turns, time, hands, seats, voids, corrections, faults.
CREATE TABLE dealer_shifts (
    table_name  text        NOT NULL,
    dealer      text        NOT NULL,
    from_event  bigint      NOT NULL CHECK (from_event >= 0),
    started_at  timestamptz,                                   -- the dealer's first sign-in of the opening
    report      jsonb       NOT NULL,                          -- `croupier ratings --dealers --json`'s object
    pit         text,
    rated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_name, dealer, from_event)
);

-- How far each table's ratings are final: every session and shift before this close is closed and stored.
CREATE TABLE rating_marks (
    table_name text    PRIMARY KEY,
    event      bigint  NOT NULL,   -- the close's id in the table's journal
    hand       integer NOT NULL    -- the hand being prepared at that close
);
