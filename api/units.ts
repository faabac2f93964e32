/**
 * Display units of a company (the `units` setting): the API always speaks
 * SI (metres, square metres, seconds, m/s, litres); apps multiply by these
 * factors to show a company's preferred units.
 */
export type UnitSystem = 'metric' | 'imperial';

export interface DisplayUnit {
  /** The unit shown. */
  unit: string;
  /** Shown value = API value × factor. */
  factor: number;
}

export interface DisplayUnits {
  /** From metres. */
  length: DisplayUnit;
  /** From metres (field and swath widths). */
  width: DisplayUnit;
  /** From square metres. */
  area: DisplayUnit;
  /** From m/s. */
  speed: DisplayUnit;
  /** From litres. */
  volume: DisplayUnit;
}

export const DISPLAY_UNITS: Record<UnitSystem, DisplayUnits> = {
  metric: {
    length: { unit: 'km', factor: 0.001 },
    width: { unit: 'm', factor: 1 },
    area: { unit: 'ha', factor: 0.0001 },
    speed: { unit: 'km/h', factor: 3.6 },
    volume: { unit: 'L', factor: 1 },
  },
  imperial: {
    length: { unit: 'mi', factor: 1 / 1609.344 },
    width: { unit: 'ft', factor: 1 / 0.3048 },
    area: { unit: 'ac', factor: 1 / 4046.8564224 },
    speed: { unit: 'mph', factor: 3600 / 1609.344 },
    volume: { unit: 'gal (US)', factor: 1 / 3.785411784 },
  },
};

/** A stored `units` value as a unit system (metric unless it says imperial). */
export const unitSystemOf = (v: unknown): UnitSystem => (v === 'imperial' ? 'imperial' : 'metric');
