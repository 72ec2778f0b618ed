WITH cheap AS (SELECT id, name FROM items WHERE price < 3) SELECT name, (SELECT max(tag) FROM tags WHERE item_id = cheap.id), EXISTS (SELECT 1 FROM tags WHERE tags.item_id = cheap.id) FROM cheap WHERE id IN (SELECT item_id FROM tags) OR id NOT IN (1, 2, NULL);
SELECT * FROM expensive e FULL JOIN (SELECT day, amount FROM events) d ON e.price = d.amount
