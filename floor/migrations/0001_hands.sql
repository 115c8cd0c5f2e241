-- The archive of closed hands: one row per (table, hand), the hand's `croupier history --json`
-- record whole in `record`, and beside it the columns the floor's figures are computed from.
CREATE TABLE hands (
    table_name     text        NOT NULL,
    hand           integer     NOT NULL CHECK (hand > 0),
    status         text        NOT NULL,            -- settled | voided
    game           text,                            -- uth, 3cp, or the poker variant
    poker          boolean     NOT NULL DEFAULT false,
    opened_at      timestamptz,                     -- when the record carries them (`opened`, `closed`)
    closed_at      timestamptz,
    profile_name   text,
    profile_sha256 text,
    limits         jsonb       NOT NULL DEFAULT '{}'::jsonb,
    voided         boolean     NOT NULL DEFAULT false,
    handle         jsonb       NOT NULL DEFAULT '{}'::jsonb,  -- per bet circle, in the table's smallest unit
    handle_total   bigint      NOT NULL DEFAULT 0,
    house_net      bigint      NOT NULL DEFAULT 0,            -- the house's win on the hand (poker: the rake)
    signed_off     boolean     NOT NULL DEFAULT false,        -- a supervisor signed a step of the hand off
    record         jsonb       NOT NULL,
    archived_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_name, hand)
);
CREATE INDEX hands_game ON hands (game);
CREATE INDEX hands_closed_at ON hands (closed_at);

-- Every fault a hand stood, in the order it stood them, and who cleared it.
CREATE TABLE faults (
    table_name text    NOT NULL,
    hand       integer NOT NULL,
    n          integer NOT NULL,                    -- the fault's place in the hand, from 1
    kind       text    NOT NULL,
    detail     text,
    cleared_by text,
    reason     text,
    then_step  text,                                -- what the clear did next: resume | void ...
    PRIMARY KEY (table_name, hand, n),
    FOREIGN KEY (table_name, hand) REFERENCES hands ON DELETE CASCADE
);
CREATE INDEX faults_kind ON faults (kind);

-- Every voided hand: every bet returned, and why.
CREATE TABLE voids (
    table_name text    NOT NULL,
    hand       integer NOT NULL,
    reason     text,
    PRIMARY KEY (table_name, hand),
    FOREIGN KEY (table_name, hand) REFERENCES hands ON DELETE CASCADE
);

-- Every step a supervisor signed off (a fault's clearing), by user.
CREATE TABLE sign_offs (
    table_name text    NOT NULL,
    hand       integer NOT NULL,
    n          integer NOT NULL,
    step       text    NOT NULL,                    -- clear
    signed_by  text    NOT NULL,
    reason     text,
    PRIMARY KEY (table_name, hand, n),
    FOREIGN KEY (table_name, hand) REFERENCES hands ON DELETE CASCADE
);
CREATE INDEX sign_offs_by ON sign_offs (signed_by);
