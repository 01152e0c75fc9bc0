/**
 * The GPS items of a dictionary (docs/export.md#gps-items-of-a-dictionary): the latitude and
 * longitude items a GeoJSON export places its points with when it is given none. Checked against
 * the dictionary when set (numeric, one value each, on the same record); an export checks them
 * again, since a new version of the dictionary may have dropped them.
 */
import { findItem, gpsItems, type ItemPlace } from '../../export/geojson/gps-items.js';
import type { StoreScope } from '../../store/store-contract.js';
import { requireDictionary } from './dictionaries.js';

/** The GPS items of a dictionary, as its reply shows them; null items when none are set. */
export interface DictionaryGpsReply {
  dictionary: string;
  latitude: string | null;
  longitude: string | null;
  /** Where both are: a record's name, or `level N ids`; null when none are set. */
  record: string | null;
  message: string;
}

/**
 * Sets the latitude and longitude items of the dictionary `name` (replacing those it had), after
 * checking them against it (GPS_ITEM_INVALID). Stored as the dictionary spells them.
 */
export async function setDictionaryGps(store: StoreScope, name: string, latitude: string, longitude: string): Promise<DictionaryGpsReply> {
  return store.transaction(async (tx) => {
    const d = await requireDictionary(tx, name);
    const gps = gpsItems(d.model, latitude, longitude);
    const lat = gps.latitude.item.name;
    const lon = gps.longitude.item.name;
    await tx.dictionaries.setGps(d.id, { latitude: lat, longitude: lon });
    const record = placeName(gps.latitude);
    return {
      dictionary: d.name,
      latitude: lat,
      longitude: lon,
      record,
      message: `GPS items of ${d.name}: latitude ${lat}, longitude ${lon} (${record})`,
    };
  });
}

/** Clears the GPS items of the dictionary `name`; says whether it had any. */
export async function clearDictionaryGps(store: StoreScope, name: string): Promise<DictionaryGpsReply & { cleared: boolean }> {
  return store.transaction(async (tx) => {
    const d = await requireDictionary(tx, name);
    const cleared = await tx.dictionaries.setGps(d.id, null);
    return {
      dictionary: d.name,
      latitude: null,
      longitude: null,
      record: null,
      cleared,
      message: cleared ? `GPS items of ${d.name} cleared` : `${d.name} had no GPS items set`,
    };
  });
}

/** Where an item is, as the reply names it: its record, or `level N ids`. */
function placeName(p: ItemPlace): string {
  return p.record?.name ?? `level ${p.level} ids`;
}

/**
 * The GPS items set for the dictionary `name`, or nulls when none are. `record` is null too when
 * the dictionary no longer has the latitude item (a new version dropped it).
 */
export async function getDictionaryGps(store: StoreScope, name: string): Promise<DictionaryGpsReply> {
  const d = await requireDictionary(store, name);
  const gps = await store.dictionaries.gps(d.id);
  if (!gps) return { dictionary: d.name, latitude: null, longitude: null, record: null, message: `${d.name} has no GPS items set` };
  const place = findItem(d.model, gps.latitude);
  return {
    dictionary: d.name,
    latitude: gps.latitude,
    longitude: gps.longitude,
    record: place ? placeName(place) : null,
    message: `GPS items of ${d.name}: latitude ${gps.latitude}, longitude ${gps.longitude}`,
  };
}
