BEGIN;
INSERT INTO items (name, price, qty) VALUES ('x', 1.5, 2), ('y', NULL, 0) ON CONFLICT (name) DO UPDATE SET qty = excluded.qty + 1;
SAVEPOINT s;
UPDATE items SET price = price * 2, note = upper(coalesce(note, 'n')) WHERE id IN (SELECT item_id FROM tags);
DELETE FROM items WHERE id = 1;
ROLLBACK TO s;
INSERT OR REPLACE INTO tags VALUES (2, 'green'), (3, 'blue');
COMMIT;
SELECT * FROM items ORDER BY id DESC
