/**
 * The latitude and longitude items of a GeoJSON export (docs/export.md#geojson), checked against
 * the dictionary: each a numeric item that does not repeat, both on the same record (or both id
 * items of the same level), so that every point takes its two coordinates from one row. Pure.
 */
import type { DictItem, DictRecord, Dictionary } from '../../cspro/dictionary/model.js';
import { AppError } from '../../shared/errors.js';

/** Where an item is: its level (1-based) and its record, or none for an id item of the level. */
export interface ItemPlace {
  item: DictItem;
  level: number;
  record?: DictRecord;
}

/** The item named `name` (any case) and where it is, or undefined. */
export function findItem(dict: Dictionary, name: string): ItemPlace | undefined {
  const wanted = name.trim().toUpperCase();
  for (let l = 0; l < dict.levels.length; l++) {
    const level = dict.levels[l]!;
    const id = level.ids.find((i) => i.name.toUpperCase() === wanted);
    if (id) return { item: id, level: l + 1 };
    for (const record of level.records) {
      const item = record.items.find((i) => i.name.toUpperCase() === wanted);
      if (item) return { item, level: l + 1, record };
    }
  }
  return undefined;
}

/** The latitude and longitude items, where they are. */
export interface GpsItems {
  latitude: ItemPlace;
  longitude: ItemPlace;
}

/** What a GPS item is called in messages. */
type Role = 'latitude' | 'longitude';

function gpsItem(dict: Dictionary, name: string, role: Role): ItemPlace {
  const fail = (why: string): never => {
    throw new AppError('GPS_ITEM_INVALID', `the ${role} item ${name} ${why}`, { dictionary: dict.name, item: name, role });
  };
  if (name.trim() === '') fail('is empty: name an item of the dictionary');
  const place = findItem(dict, name) ?? fail(`is not an item of the dictionary ${dict.name}`);
  if (place.item.contentType !== 'numeric') fail(`is not numeric (its content type is ${place.item.contentType})`);
  // A subitem of a repeating item repeats with it (src/breakout/item-columns.ts).
  const repeats = place.item.occurrences > 1 || (place.item.subitem && parentOccurrences(place) > 1);
  if (repeats) fail('repeats: a point takes one latitude and one longitude');
  return place;
}

/** Occurrences of the item a subitem belongs to: the nearest item before it that is not a subitem. */
function parentOccurrences(place: ItemPlace): number {
  const list = place.record?.items ?? [];
  const at = list.indexOf(place.item);
  for (let i = at - 1; i >= 0; i--) if (!list[i]!.subitem) return list[i]!.occurrences;
  return 1;
}

/**
 * Checks the latitude and longitude items named `latitude` and `longitude` against `dict`
 * (GPS_ITEM_INVALID naming the item and why otherwise) and says where they are.
 */
export function gpsItems(dict: Dictionary, latitude: string, longitude: string): GpsItems {
  const lat = gpsItem(dict, latitude, 'latitude');
  const lon = gpsItem(dict, longitude, 'longitude');
  if (lat.item === lon.item) {
    throw new AppError('GPS_ITEM_INVALID', `the latitude and the longitude are both the item ${lat.item.name}`, {
      dictionary: dict.name,
      item: lat.item.name,
    });
  }
  if (lat.level !== lon.level || lat.record !== lon.record) {
    const where = (p: ItemPlace) => (p.record ? `record ${p.record.name}` : `the id items of level ${p.level}`);
    throw new AppError(
      'GPS_ITEM_INVALID',
      `the latitude item ${lat.item.name} (${where(lat)}) and the longitude item ${lon.item.name} (${where(lon)}) are not on the same record`,
      { dictionary: dict.name, item: lon.item.name },
    );
  }
  return { latitude: lat, longitude: lon };
}
