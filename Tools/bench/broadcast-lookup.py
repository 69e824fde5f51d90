"""How a broadcast finds its devices, at 10,000 devices each with two Live Activities (one on one of 100 channels), in
SQLite: the query before migration 011 (every device's activities read as JSON) against the activity_channels table it
added. Prints the time per lookup and each query plan.

    python3 Tools/bench/broadcast-lookup.py
"""
import json, sqlite3, time
db = sqlite3.connect(":memory:")
db.executescript("""
CREATE TABLE devices (token TEXT PRIMARY KEY, environment TEXT, activities TEXT);
CREATE TABLE activity_channels (channel_id TEXT NOT NULL, app TEXT NOT NULL, device_token TEXT NOT NULL, PRIMARY KEY (channel_id, app, device_token));
""")
rows, listen = [], []
for i in range(10000):
    acts = [{"id": f"a{i}", "app": "com.example.app", "typeName": "Score", "channelID": f"ch{i % 100}", "attributes": {"team": "Lyon"},
             "contentState": {"home": 2, "away": 1}, "timestamp": 1, "startedAt": 1, "state": "active"},
            {"id": f"b{i}", "app": "com.example.app", "typeName": "Delivery", "updateToken": "x" * 64, "attributes": {}, "contentState": {"eta": 5},
             "timestamp": 1, "startedAt": 1, "state": "active"}]
    rows.append((f"{i:064x}", "development", json.dumps(acts)))
    listen.append((f"ch{i % 100}", "com.example.app", f"{i:064x}"))
db.executemany("INSERT INTO devices VALUES (?, ?, ?)", rows)
db.executemany("INSERT INTO activity_channels VALUES (?, ?, ?)", listen)
old = """SELECT token FROM devices WHERE environment = ? AND activities IS NOT NULL AND EXISTS (
  SELECT 1 FROM json_each(devices.activities) WHERE json_extract(value, '$.channelID') = ? AND json_extract(value, '$.app') = ?) ORDER BY token"""
new = """SELECT devices.token FROM activity_channels JOIN devices ON devices.token = activity_channels.device_token
  WHERE activity_channels.channel_id = ? AND activity_channels.app = ? AND devices.environment = ? ORDER BY devices.token"""
for name, sql, args in [("before (json_each over every device)", old, ("development", "ch7", "com.example.app")),
                        ("after (activity_channels)", new, ("ch7", "com.example.app", "development"))]:
    found = db.execute(sql, args).fetchall()
    start = time.perf_counter()
    for _ in range(20): db.execute(sql, args).fetchall()
    print(f"{name}: {len(found)} devices, {(time.perf_counter() - start) / 20 * 1000:.3f} ms per broadcast")
    print("   plan:", [r[3] for r in db.execute("EXPLAIN QUERY PLAN " + sql, args)])
