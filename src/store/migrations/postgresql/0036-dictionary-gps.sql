-- The GPS items of a dictionary (`sds dict set-gps`; docs/export.md#geojson): the latitude and
-- longitude items a GeoJSON export places its points with when none are given. The item names are
-- as the dictionary spells them, checked against it when set and again at each export (a new
-- version of the dictionary may have dropped them). Deleted with the dictionary.
CREATE TABLE dictionary_gps (
  dictionary_id  bigint PRIMARY KEY REFERENCES dictionaries(id) ON DELETE CASCADE,
  latitude_item  text COLLATE "C" NOT NULL,
  longitude_item text COLLATE "C" NOT NULL,
  updated_at     text COLLATE "C" NOT NULL
);
