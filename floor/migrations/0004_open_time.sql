-- The tables' open time from their open / close events and their hands, with idle spells counted as
-- closed; which pit archived each hand and event; the figures per pit and per clock hour.
-- Definitions: docs/floor.md, "Figures".

-- The pit (`[pit] name`) whose process archived the hand; null for hands archived before pits were named.
ALTER TABLE hands ADD COLUMN pit text;
CREATE INDEX hands_pit ON hands (pit);

-- Each table's `open` and `close` events, as its journal holds them (the `history` request's events pages).
CREATE TABLE table_events (
    table_name  text        NOT NULL,
    event       bigint      NOT NULL CHECK (event > 0),   -- the event's id in the table's journal
    kind        text        NOT NULL CHECK (kind IN ('open', 'close')),
    at          timestamptz NOT NULL,
    hand        integer,                                  -- the hand being prepared
    game        text,                                     -- the game opened (null for a close)
    pit         text,
    archived_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_name, event)
);
CREATE INDEX table_events_at ON table_events (table_name, at);

-- Idle: a table with no hand closed (nor opened, nor closed) for longer than this counts as closed
-- from its last such moment to its next one.
ALTER TABLE gaming_day ADD COLUMN idle interval NOT NULL DEFAULT '00:15'
    CHECK (idle > '00:00' AND idle <= '12:00');

-- The one-row settings and the shifts are never analysed by autovacuum (too few rows): unanalysed, the
-- planner takes each for about a thousand rows, costs every figure view a thousand times too high and
-- compiles it with JIT (a second a query, on a handful of hands).
ANALYZE gaming_day;
ANALYZE shifts;

-- hand_figures with the pit and the hand's local clock hour (the columns of migration 0002 first).
CREATE OR REPLACE VIEW hand_figures AS
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
       END AS theoretical,
       h.pit,
       date_trunc('hour', h.closed_at AT TIME ZONE g.time_zone) AS clock_hour
  FROM hands h CROSS JOIN gaming_day g;

-- Every moment a table's open time turns on, in order: its opens, each hand closed, its closes.
CREATE VIEW table_moments AS
SELECT table_name, closed_at AS at, 'hand' AS kind, game, pit, 1 AS rank FROM hands WHERE closed_at IS NOT NULL
UNION ALL
SELECT table_name, at, kind, game, pit, CASE kind WHEN 'open' THEN 0 ELSE 2 END FROM table_events;

-- The spells a table was open: from each moment after which it is open (an open, a hand closed) to
-- the next moment, when that comes within the idle time. A spell ending in a hand is that hand's
-- game and pit, any other the game and pit of the moment it starts from. Before a table's first
-- moment nothing counts (a table with no open archived is open from its first hand closed).
CREATE VIEW open_spells AS
SELECT m.table_name, CASE WHEN m.next_kind = 'hand' THEN m.next_game ELSE m.game END AS game,
       CASE WHEN m.next_kind = 'hand' THEN m.next_pit ELSE m.pit END AS pit, m.at AS from_at, m.next_at AS to_at
  FROM (SELECT t.*, lead(at) OVER w AS next_at, lead(kind) OVER w AS next_kind, lead(game) OVER w AS next_game,
               lead(pit) OVER w AS next_pit
          FROM table_moments t WINDOW w AS (PARTITION BY table_name ORDER BY at, rank)) m
  CROSS JOIN gaming_day g
 WHERE m.kind <> 'close' AND m.next_at > m.at AND m.next_at - m.at <= g.idle;

-- The open spells cut at every local clock hour, shift start and gaming day start: each piece lies in
-- one gaming day, one shift and one clock hour. Most spells (one hand's time) hold no such cut: they
-- are taken whole; only the others are cut (a lateral series of their cuts).
CREATE VIEW open_pieces AS
WITH spells AS (
    SELECT s.*, s.from_at AT TIME ZONE g.time_zone AS from_local, s.to_at AT TIME ZONE g.time_zone AS to_local
      FROM open_spells s CROSS JOIN gaming_day g),
off_the_hour AS (  -- the shift and gaming day starts that are not on a whole hour (usually none)
    SELECT starts FROM shifts WHERE starts <> date_trunc('hour', starts)
    UNION SELECT starts FROM gaming_day WHERE starts <> date_trunc('hour', starts)),
pieces AS (
    SELECT table_name, game, pit, from_at, to_at FROM spells
     WHERE to_local <= date_trunc('hour', from_local) + interval '1 hour'
       AND NOT EXISTS (SELECT 1 FROM off_the_hour o WHERE from_local::date + o.starts > from_local
                                                    AND from_local::date + o.starts < to_local)
    UNION ALL
    SELECT s.table_name, s.game, s.pit, p.from_at, p.to_at
      FROM spells s CROSS JOIN gaming_day g
     CROSS JOIN LATERAL (
         SELECT c.at AS from_at, lead(c.at, 1, s.to_at) OVER (ORDER BY c.at) AS to_at
           FROM (SELECT s.from_at AS at
                 UNION
                 SELECT cut AT TIME ZONE g.time_zone
                   FROM (SELECT generate_series(date_trunc('hour', s.from_local) + interval '1 hour', s.to_local,
                                                interval '1 hour') AS cut
                         UNION
                         SELECT d + x.starts
                           FROM generate_series(s.from_local::date::timestamp, s.to_local::date::timestamp,
                                                interval '1 day') d,
                                (SELECT starts FROM shifts UNION SELECT g.starts) x) cuts
                  WHERE cut > s.from_local AND cut < s.to_local) c) p
     WHERE NOT (s.to_local <= date_trunc('hour', s.from_local) + interval '1 hour'
                AND NOT EXISTS (SELECT 1 FROM off_the_hour o WHERE s.from_local::date + o.starts > s.from_local
                                                             AND s.from_local::date + o.starts < s.to_local))
       AND p.from_at < p.to_at)
SELECT p.table_name, p.game, p.pit, p.from_at, p.to_at,
       ((p.from_at AT TIME ZONE g.time_zone) - g.starts)::date AS gaming_day,
       (SELECT sh.name FROM shifts sh
         ORDER BY (sh.starts <= ((p.from_at AT TIME ZONE g.time_zone)::time)::interval) DESC, sh.starts DESC
         LIMIT 1) AS shift,
       date_trunc('hour', p.from_at AT TIME ZONE g.time_zone) AS clock_hour,
       extract(epoch FROM p.to_at - p.from_at) / 3600.0 AS hours
  FROM pieces p CROSS JOIN gaming_day g;

-- Per table, game, gaming day and pit: hands, handle, the house's win, and the open time (its pieces).
DROP VIEW table_shift_figures;
DROP VIEW table_day_figures;

CREATE VIEW table_day_figures AS
SELECT table_name, game, gaming_day, coalesce(bool_or(poker), game NOT IN ('uth', '3cp')) AS poker,
       count(hand) AS hands, count(*) FILTER (WHERE voided) AS voids,
       coalesce(sum(spots), 0) AS spots,
       coalesce(sum(handle_total), 0) AS handle,
       coalesce(sum(house_net), 0) AS house_win,
       sum(house_net) FILTER (WHERE poker) AS rake,
       CASE WHEN bool_and(theoretical IS NOT NULL OR (hand IS NULL AND game IN ('uth', '3cp')))
            THEN coalesce(sum(theoretical), 0) END AS theoretical,
       min(closed_at) AS first_closed, max(closed_at) AS last_closed,
       coalesce(sum(hours), 0) AS open_hours, pit
  FROM (SELECT table_name, game, gaming_day, pit, poker, hand, voided, spots, handle_total, house_net,
               theoretical, closed_at, NULL::numeric AS hours FROM hand_figures
        UNION ALL
        SELECT table_name, game, gaming_day, pit, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, hours
          FROM open_pieces) r
 GROUP BY table_name, game, gaming_day, pit;

-- The same per shift of the gaming day.
CREATE VIEW table_shift_figures AS
SELECT table_name, game, gaming_day, shift, coalesce(bool_or(poker), game NOT IN ('uth', '3cp')) AS poker,
       count(hand) AS hands, count(*) FILTER (WHERE voided) AS voids,
       coalesce(sum(spots), 0) AS spots,
       coalesce(sum(handle_total), 0) AS handle,
       coalesce(sum(house_net), 0) AS house_win,
       sum(house_net) FILTER (WHERE poker) AS rake,
       CASE WHEN bool_and(theoretical IS NOT NULL OR (hand IS NULL AND game IN ('uth', '3cp')))
            THEN coalesce(sum(theoretical), 0) END AS theoretical,
       min(closed_at) AS first_closed, max(closed_at) AS last_closed,
       coalesce(sum(hours), 0) AS open_hours, pit
  FROM (SELECT table_name, game, gaming_day, shift, pit, poker, hand, voided, spots, handle_total, house_net,
               theoretical, closed_at, NULL::numeric AS hours FROM hand_figures
        UNION ALL
        SELECT table_name, game, gaming_day, shift, pit, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, hours
          FROM open_pieces) r
 GROUP BY table_name, game, gaming_day, shift, pit;

-- Per table, pit, gaming day and local clock hour: hands closed and the house's win in that hour, and
-- the hour's open time (the chart of the day: floor/series.py).
CREATE VIEW table_hour_figures AS
SELECT table_name, game, pit, gaming_day, clock_hour,
       count(hand) AS hands, coalesce(sum(house_net), 0) AS house_win, coalesce(sum(hours), 0) AS open_hours
  FROM (SELECT table_name, game, pit, gaming_day, clock_hour, hand, house_net, NULL::numeric AS hours
          FROM hand_figures
        UNION ALL
        SELECT table_name, game, pit, gaming_day, clock_hour, NULL, NULL, hours FROM open_pieces) r
 GROUP BY table_name, game, pit, gaming_day, clock_hour;
