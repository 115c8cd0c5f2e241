-- The chips a smart table's tray read (docs/tray.md): each house hand's record carries the buy-ins,
-- colour-ups, fills and credits recorded at the table since the hand before (`tray.movements`: the
-- amount recorded and what the tray `read` of it, null when the reading cannot tell). Per table and
-- gaming day, what the tray read of the chips sold for cash (the drop's chips), the fills and the credits.
CREATE VIEW table_day_tray AS
SELECT h.table_name, ((h.closed_at AT TIME ZONE g.time_zone) - g.starts)::date AS gaming_day,
       sum(coalesce((m ->> 'read')::bigint, (m ->> 'amount')::bigint)) FILTER (WHERE m ->> 'kind' = 'buy_in') AS drop_read,
       sum(coalesce((m ->> 'read')::bigint, (m ->> 'amount')::bigint)) FILTER (WHERE m ->> 'kind' = 'fill') AS fills_read,
       sum(coalesce((m ->> 'read')::bigint, (m ->> 'amount')::bigint)) FILTER (WHERE m ->> 'kind' = 'credit') AS credits_read
  FROM hands h CROSS JOIN gaming_day g
 CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(h.record -> 'tray' -> 'movements') = 'array'
                                              THEN h.record -> 'tray' -> 'movements' ELSE '[]'::jsonb END) m
 GROUP BY 1, 2;

-- The pit's counts per table and gaming day, as 0002 made them, but for the drop, fills and credits: the
-- tray's read values where it read any of that kind that day, else the counts the pit entered.
CREATE OR REPLACE VIEW table_day_counts AS
WITH c AS (
    SELECT table_name, gaming_day,
           sum(amount) FILTER (WHERE kind = 'drop') AS drop_total,
           sum(amount) FILTER (WHERE kind = 'fill') AS fills,
           sum(amount) FILTER (WHERE kind = 'credit') AS credits,
           (array_agg(amount ORDER BY entered_at DESC, id DESC) FILTER (WHERE kind = 'opening'))[1] AS opening,
           (array_agg(amount ORDER BY entered_at DESC, id DESC) FILTER (WHERE kind = 'closing'))[1] AS closing
      FROM table_counts GROUP BY table_name, gaming_day),
r AS (
    SELECT coalesce(c.table_name, t.table_name) AS table_name, coalesce(c.gaming_day, t.gaming_day) AS gaming_day,
           coalesce(t.drop_read, c.drop_total) AS drop_total, coalesce(t.fills_read, c.fills) AS fills,
           coalesce(t.credits_read, c.credits) AS credits, c.opening, c.closing
      FROM c FULL JOIN table_day_tray t ON t.table_name = c.table_name AND t.gaming_day = c.gaming_day)
SELECT table_name, gaming_day, coalesce(drop_total, 0) AS drop_total, coalesce(fills, 0) AS fills,
       coalesce(credits, 0) AS credits, opening, closing,
       closing + coalesce(credits, 0) + coalesce(drop_total, 0) - opening - coalesce(fills, 0) AS win,
       round(100.0 * (closing + coalesce(credits, 0) + coalesce(drop_total, 0) - opening - coalesce(fills, 0))
             / nullif(coalesce(drop_total, 0), 0), 2) AS hold_pct
  FROM r;
