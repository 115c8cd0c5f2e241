"""What the table and the floor both speak: the feed and its followers, the command channel's codec and client, CURVE keys and ZAP, roles, users and sign-offs, the audit log."""
