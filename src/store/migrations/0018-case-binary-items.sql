-- Binary case items (docs/sync.md#binary-items): which case refers to which content. The content
-- itself is a file named by its md5 under files/binary-items/<dictionary, lower case>/, shared by
-- every case that holds the same bytes. A case's rows are replaced whenever the case is written
-- and go with it (a purge); `size` is the length the descriptor or CSWeb gave, `modified_time` the
-- time of that write (RFC 3339 UTC), as CSWeb keeps them in <DICT>_case_binary_data.
CREATE TABLE case_binary_items (
  dictionary_id INTEGER NOT NULL,
  case_guid     TEXT NOT NULL,
  signature     TEXT NOT NULL,
  size          INTEGER,
  modified_time TEXT NOT NULL,
  PRIMARY KEY (dictionary_id, case_guid, signature),
  FOREIGN KEY (dictionary_id, case_guid) REFERENCES cases (dictionary_id, guid) ON DELETE CASCADE
);
CREATE INDEX case_binary_items_by_signature ON case_binary_items (dictionary_id, signature);
