import {
  deletePhotosQuestion,
  formatAperture,
  formatExposure,
  formatExposureTime,
  formatPlace,
  placeMapUrl,
} from './photo-details';

describe('photo details', () => {
  it('writes exposure times as a camera does', () => {
    expect(formatExposureTime(0.004)).toBe('1/250 s');
    expect(formatExposureTime(1 / 3)).toBe('1/3 s');
    expect(formatExposureTime(2)).toBe('2 s');
    expect(formatExposureTime(1.3)).toBe('1.3 s');
    expect(formatExposureTime(0)).toBeNull();
    expect(formatExposureTime(null)).toBeNull();
    expect(formatAperture(2.8)).toBe('f/2.8');
    expect(formatAperture(8)).toBe('f/8');
  });

  it('joins the known parts of the exposure', () => {
    expect(formatExposure({ exposureTime: 0.004, fNumber: 2.8, iso: 200, focalLength: 50 })).toBe(
      '1/250 s · f/2.8 · ISO 200 · 50 mm',
    );
    expect(formatExposure({ exposureTime: null, fNumber: 1.8, iso: null, focalLength: 4.25 })).toBe('f/1.8 · 4.3 mm');
    expect(formatExposure({ exposureTime: null, fNumber: null, iso: null, focalLength: null })).toBeNull();
  });

  it('writes a place with hemispheres and links a map', () => {
    expect(formatPlace({ latitude: 48.858233, longitude: 2.2945 })).toBe('48.85823° N, 2.29450° E');
    expect(formatPlace({ latitude: -33.8568, longitude: -151.2153 })).toBe('33.85680° S, 151.21530° W');
    expect(formatPlace(null)).toBeNull();
    expect(placeMapUrl({ latitude: 1, longitude: 2 })).toBe(
      'https://www.openstreetmap.org/?mlat=1.00000&mlon=2.00000#map=16/1.00000/2.00000',
    );
  });

  it('asks how many photos to delete', () => {
    expect(deletePhotosQuestion(1)).toBe('Delete 1 photo?');
    expect(deletePhotosQuestion(3)).toBe('Delete 3 photos?');
  });
});
