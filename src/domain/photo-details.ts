/**
 * How the viewer's Info panel writes a photo's EXIF values. Pure; null in, null out, so a
 * missing value shows as a missing row rather than 'undefined'.
 */

/** 0.004 -> '1/250 s', 0.5 -> '1/2 s', 2 -> '2 s', 1.3 -> '1.3 s'. */
export function formatExposureTime(seconds: number | null): string | null {
  if (seconds === null || !Number.isFinite(seconds) || seconds <= 0) return null;
  if (seconds >= 1) return `${Number(seconds.toFixed(1))} s`;
  return `1/${Math.round(1 / seconds)} s`;
}

/** 2.8 -> 'f/2.8', 8 -> 'f/8'. */
export function formatAperture(fNumber: number | null): string | null {
  if (fNumber === null || !Number.isFinite(fNumber) || fNumber <= 0) return null;
  return `f/${Number(fNumber.toFixed(1))}`;
}

/** The exposure line: '1/250 s · f/2.8 · ISO 200 · 50 mm', from whichever parts are known. */
export function formatExposure(e: {
  exposureTime: number | null;
  fNumber: number | null;
  iso: number | null;
  focalLength: number | null;
}): string | null {
  const parts = [
    formatExposureTime(e.exposureTime),
    formatAperture(e.fNumber),
    e.iso !== null && e.iso > 0 ? `ISO ${Math.round(e.iso)}` : null,
    e.focalLength !== null && e.focalLength > 0 ? `${Number(e.focalLength.toFixed(1))} mm` : null,
  ].filter((p): p is string => p !== null);
  return parts.length ? parts.join(' · ') : null;
}

/** 48.85823, 2.2945 -> '48.85823° N, 2.29450° E' (five decimals: about a metre). */
export function formatPlace(place: { latitude: number; longitude: number } | null): string | null {
  if (!place) return null;
  const { latitude: lat, longitude: lon } = place;
  return `${Math.abs(lat).toFixed(5)}° ${lat < 0 ? 'S' : 'N'}, ${Math.abs(lon).toFixed(5)}° ${lon < 0 ? 'W' : 'E'}`;
}

/** A map of the place on OpenStreetMap. */
export function placeMapUrl(place: { latitude: number; longitude: number }): string {
  const lat = place.latitude.toFixed(5);
  const lon = place.longitude.toFixed(5);
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=16/${lat}/${lon}`;
}

/** 'Delete 3 photos?' / 'Delete this photo?' (the confirmation's title). */
export function deletePhotosQuestion(count: number): string {
  return count === 1 ? 'Delete 1 photo?' : `Delete ${count} photos?`;
}
