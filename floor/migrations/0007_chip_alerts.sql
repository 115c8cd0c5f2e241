-- A smart table's chip alerts and the dealers' figures (docs/floor.md, "Chip alerts and dealers"): per archived
-- hand the mispays, moved chips and foreign chips its chip reader noted (the record's `chips.notes`, by kind)
-- and the tray differences flagged since the hand before closed (`tray.flags`), counted as
-- `engine.ratings.chip_alerts` counts them; per table, gaming day and shift; and each dealer's figures over
-- one opening of a table (`dealer_shifts.report`, `engine.ratings.DealerShift`) as columns.

CREATE VIEW hand_chip_alerts AS
SELECT f.table_name, f.hand, f.game, f.pit, f.gaming_day, f.shift, f.closed_at,
       coalesce(jsonb_typeof(h.record -> 'chips') = 'object', false) AS chips,
       (SELECT count(*) FROM jsonb_array_elements(n.notes) e WHERE e ->> 'kind' = 'mispay') AS mispays,
       (SELECT count(*) FROM jsonb_array_elements(n.notes) e WHERE e ->> 'kind' = 'chips_moved') AS moved_chips,
       (SELECT count(*) FROM jsonb_array_elements(n.notes) e WHERE e ->> 'kind' = 'foreign_chip') AS foreign_chips,
       jsonb_array_length(t.flags) AS tray_differences,
       (SELECT coalesce(sum((e ->> 'value')::bigint), 0) FROM jsonb_array_elements(t.flags) e) AS tray_difference
  FROM hand_figures f
  JOIN hands h ON h.table_name = f.table_name AND h.hand = f.hand
 CROSS JOIN LATERAL (SELECT CASE WHEN jsonb_typeof(h.record -> 'chips' -> 'notes') = 'array'
                                 THEN h.record -> 'chips' -> 'notes' ELSE '[]'::jsonb END AS notes) n
 CROSS JOIN LATERAL (SELECT CASE WHEN jsonb_typeof(h.record -> 'tray' -> 'flags') = 'array'
                                 THEN h.record -> 'tray' -> 'flags' ELSE '[]'::jsonb END AS flags) t;

-- Per table, gaming day and shift: the hands whose chips were read, and their alerts.
CREATE VIEW table_shift_alerts AS
SELECT table_name, gaming_day, shift, max(pit) AS pit,
       count(*) FILTER (WHERE chips) AS chip_hands,
       sum(mispays)::bigint AS mispays, sum(moved_chips)::bigint AS moved_chips,
       sum(foreign_chips)::bigint AS foreign_chips, sum(tray_differences)::bigint AS tray_differences,
       sum(tray_difference)::bigint AS tray_difference
  FROM hand_chip_alerts GROUP BY table_name, gaming_day, shift;

-- Each dealer's figures over one opening of a table, its gaming day by the dealer's first sign-in there.
CREATE VIEW dealer_figures AS
SELECT d.table_name, d.dealer, d.from_event, d.pit, d.started_at,
       ((d.started_at AT TIME ZONE g.time_zone) - g.starts)::date AS gaming_day,
       (d.report ->> 'turns')::int AS turns, (d.report ->> 'time_s')::float8 AS time_s,
       (d.report ->> 'on_table')::boolean AS on_table, (d.report ->> 'hands')::int AS hands,
       coalesce((d.report ->> 'seats_filled')::int, 0) AS seats_filled,
       (d.report ->> 'voids')::int AS voids, (d.report ->> 'corrections')::int AS corrections,
       (d.report ->> 'faults')::int AS faults,
       coalesce((d.report ->> 'mispays')::int, 0) AS mispays,
       coalesce((d.report ->> 'moved_chips')::int, 0) AS moved_chips,
       coalesce((d.report ->> 'foreign_chips')::int, 0) AS foreign_chips,
       coalesce((d.report ->> 'tray_differences')::int, 0) AS tray_differences
  FROM dealer_shifts d CROSS JOIN gaming_day g;
CREATE INDEX dealer_shifts_started ON dealer_shifts (started_at);
