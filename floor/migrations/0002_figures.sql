-- The floor's figures: the gaming day and its shifts (settings), each bet's house edge per profile,
-- the counts the pit enters (drop, fills, credits, inventories), and the views the figures are read from.

-- The gaming day: it starts at `starts` local time in `time_zone` (one row).
CREATE TABLE gaming_day (
    id        boolean  PRIMARY KEY DEFAULT true CHECK (id),
    starts    interval NOT NULL DEFAULT '06:00' CHECK (starts >= '00:00' AND starts < '24:00'),
    time_zone text     NOT NULL DEFAULT 'UTC'
);
INSERT INTO gaming_day DEFAULT VALUES;

-- The shifts of the gaming day: each runs from its `starts` (local time) to the next one's.
CREATE TABLE shifts (
    name   text     PRIMARY KEY,
    starts interval NOT NULL UNIQUE CHECK (starts >= '00:00' AND starts < '24:00')
);
INSERT INTO shifts VALUES ('day', '06:00'), ('swing', '14:00'), ('grave', '22:00');

-- Each bet circle's house edge under one profile (by its sha256), as a fraction of what is wagered
-- on the circle whose handle it multiplies: 3CP's `ante` carries the Ante and Play's edge per Ante
-- (so its `play` is 0), `pair_plus` and `bonus` their own. Filled by `croupier stats` from the
-- profiles' archived text with the engine's exact figures (engine/house_edge.py); UTH has none yet.
CREATE TABLE bet_edges (
    profile_sha256 text    NOT NULL,
    game           text    NOT NULL,                -- 3cp (uth once its figures are in the engine)
    circle         text    NOT NULL,
    edge           numeric NOT NULL,
    exact          text    NOT NULL,                -- the exact rational, e.g. 686689/20358520
    PRIMARY KEY (profile_sha256, game, circle)
);

-- What the pit counts and enters for a table's gaming day; drop, fill and credit add up, the
-- latest opening and closing inventory stand.
CREATE TABLE table_counts (
    id          bigserial   PRIMARY KEY,
    table_name  text        NOT NULL,
    gaming_day  date        NOT NULL,
    kind        text        NOT NULL CHECK (kind IN ('drop', 'fill', 'credit', 'opening', 'closing')),
    amount      bigint      NOT NULL CHECK (amount >= 0),
    entered_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX table_counts_day ON table_counts (table_name, gaming_day);

-- Each archived hand with its gaming day, shift, spots and theoretical win.
CREATE VIEW hand_figures AS
SELECT h.table_name, h.hand, h.game, h.poker, h.voided, h.closed_at, h.handle, h.handle_total, h.house_net,
       h.profile_sha256,
       ((h.closed_at AT TIME ZONE g.time_zone) - g.starts)::date AS gaming_day,
       (SELECT s.name FROM shifts s
         ORDER BY (s.starts <= ((h.closed_at AT TIME ZONE g.time_zone)::time)::interval) DESC, s.starts DESC
         LIMIT 1) AS shift,
       CASE WHEN h.poker OR h.voided THEN 0
            ELSE coalesce(jsonb_array_length(h.record -> 'round' -> 'spots'), 0) END AS spots,
       CASE WHEN h.poker THEN NULL
            WHEN h.voided OR h.handle_total = 0 THEN 0
            ELSE (SELECT CASE WHEN bool_and(e.edge IS NOT NULL OR c.value::bigint = 0)
                              THEN sum(c.value::bigint * coalesce(e.edge, 0)) END
                    FROM jsonb_each_text(h.handle) c
                    LEFT JOIN bet_edges e
                      ON e.profile_sha256 = h.profile_sha256 AND e.game = h.game AND e.circle = c.key)
       END AS theoretical
  FROM hands h CROSS JOIN gaming_day g;

-- The pit's counts per table and gaming day, and the win and hold they give:
-- win = closing + credits + drop - opening - fills; hold % = 100 x win / drop (null where drop is 0).
CREATE VIEW table_day_counts AS
WITH c AS (
    SELECT table_name, gaming_day,
           sum(amount) FILTER (WHERE kind = 'drop') AS drop_total,
           sum(amount) FILTER (WHERE kind = 'fill') AS fills,
           sum(amount) FILTER (WHERE kind = 'credit') AS credits,
           (array_agg(amount ORDER BY entered_at DESC, id DESC) FILTER (WHERE kind = 'opening'))[1] AS opening,
           (array_agg(amount ORDER BY entered_at DESC, id DESC) FILTER (WHERE kind = 'closing'))[1] AS closing
      FROM table_counts GROUP BY table_name, gaming_day)
SELECT table_name, gaming_day, coalesce(drop_total, 0) AS drop_total, coalesce(fills, 0) AS fills,
       coalesce(credits, 0) AS credits, opening, closing,
       closing + coalesce(credits, 0) + coalesce(drop_total, 0) - opening - coalesce(fills, 0) AS win,
       round(100.0 * (closing + coalesce(credits, 0) + coalesce(drop_total, 0) - opening - coalesce(fills, 0))
             / nullif(coalesce(drop_total, 0), 0), 2) AS hold_pct
  FROM c;

-- Per table, game and gaming day: hands, handle, the house's win, open time and the rates over it.
-- Open time: from the first to the last hand closed that day (no open / close events are archived).
CREATE VIEW table_day_figures AS
SELECT table_name, game, gaming_day, bool_or(poker) AS poker,
       count(*) AS hands, count(*) FILTER (WHERE voided) AS voids,
       sum(spots) AS spots,
       sum(handle_total) AS handle,
       sum(house_net) AS house_win,
       sum(house_net) FILTER (WHERE poker) AS rake,
       CASE WHEN bool_and(theoretical IS NOT NULL) THEN sum(theoretical) END AS theoretical,
       min(closed_at) AS first_closed, max(closed_at) AS last_closed,
       extract(epoch FROM max(closed_at) - min(closed_at)) / 3600.0 AS open_hours
  FROM hand_figures GROUP BY table_name, game, gaming_day;

-- The same per shift of the gaming day: open time from the first to the last hand closed in the shift.
CREATE VIEW table_shift_figures AS
SELECT table_name, game, gaming_day, shift, bool_or(poker) AS poker,
       count(*) AS hands, count(*) FILTER (WHERE voided) AS voids,
       sum(spots) AS spots,
       sum(handle_total) AS handle,
       sum(house_net) AS house_win,
       sum(house_net) FILTER (WHERE poker) AS rake,
       CASE WHEN bool_and(theoretical IS NOT NULL) THEN sum(theoretical) END AS theoretical,
       min(closed_at) AS first_closed, max(closed_at) AS last_closed,
       extract(epoch FROM max(closed_at) - min(closed_at)) / 3600.0 AS open_hours
  FROM hand_figures GROUP BY table_name, game, gaming_day, shift;
