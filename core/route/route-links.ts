/**
 * The ways between two poses of a route: a direct turn or connector (forward
 * first), travel along a headland ring or from one ring to another, or, as a
 * last resort, straight legs through the field (travel along the rings is
 * in ring-travel.ts). Every way follows the machine's turn model and stays
 * inside the field.
 */
import type { EdgeIndex } from '../geometry/edge-index.ts';
import { turnRegionPolygons } from '../geometry/turn-region.ts';
import { polylineLength } from '../geometry/vec.ts';
import type { HeadlandRing } from '../headland/generate-headlands.ts';
import { overhangLength } from '../metrics/turn-overhang.ts';
import type { PathPart, Point, Polygon, Pose } from '../types/index.ts';
import { clearOr, joinedPieces } from './clear-turns.ts';
import { type Connection, type ConnectOptions, connectPoses as connectWith } from './connect.ts';
import { staysInside } from './connect-inside.ts';
import { FieldTravel } from './field-travel.ts';
import { multiPointTurn } from './multi-point-turn.ts';
import type { RingDirection, RingPath } from './ring-path.ts';
import { RingTravel } from './ring-travel.ts';
import { dist, pickShorter, ringPlaces, samePose, shortestOf } from './route-geometry.ts';
import { type SharedLinks, sharedLinks } from './shared-links.ts';
import { MAX_REVERSE_RADII, TightTurns } from './tight-turns.ts';

/** Straight reversing before and after a turn round in a tip: at most this far [turning radii] where the lines in and out are not known to run farther (and tried only between poses this near). */
const TIP_REACH_RADII = 5;

/**
 * A turn that swings the implement over the edge is re-chosen between poses
 * at most this many turning radii apart (a turn round between tracks a few
 * swaths apart where the ends run near the edge, say) [turning radii].
 */
const CLEAR_REACH_RADII = 15;

/** A way through the field that keeps the implement inside is taken over a turn round that does not when at most this many turning radii longer. */
const DETOUR_RADII = 15;
/** ... and this much longer [m] for each metre the turn round swings over the edge beyond OVERHANG_FREE. */
const DETOUR_PER_OVERHANG = 40;
/** Overhang of a turn round [m] that earns no longer detour. */
const OVERHANG_FREE = 20;

/**
 * Distances along a ring [turning radii] a way onto it that keeps the
 * implement inside is looked for at (besides the 2, 3, 5 and 8 radii every
 * way onto a pass tries first).
 */
const JOIN_RADII = [1, 1.5, 4, 6.5, 11, 16];

/** Distances along its line [turning radii] an end outside the turn area is joined to it from. */
const LINE_INTO_RADII = [0.25, 0.5, 1, 2, 3, 4, 5];

/** A reversing turn is taken over a forward way round when shorter by this many turning radii. */
const CUSP_PENALTY_RADII = 4;

/** A headland pass of the zone with its path for driving and travel. */
export interface RouteRing {
  ring: HeadlandRing;
  path: RingPath;
  exterior: boolean;
}

/** A way found between two poses: its length and the connections that drive it, with their part types. */
export interface Found {
  length: number;
  legs: [Connection, PathPart['type']][];
}

export interface LinkSetup {
  /** Edges of the zone boundary and its obstacles. */
  region: EdgeIndex;
  /** The zone polygon (its holes are obstacles). */
  zone: Polygon;
  /** Minimum turning radius [m]. */
  radius: number;
  /** Curvature-rate limit [1/m^2], if any. */
  curvatureRate: number | undefined;
  swathWidth: number;
  /** Connectors straight through the headland, never along a headland pass. */
  headlandDrivethrough: boolean | undefined;
  /** The rings travel may follow. */
  travelRings: readonly RouteRing[];
}

/** A join onto a ring: where along it (arc length s), driven which way, and the legs that reach it. */
export interface RingJoin {
  s: number;
  dir: RingDirection;
  legs: [Connection, PathPart['type']][];
}

export class RouteLinks {
  private readonly region: EdgeIndex;
  private readonly zone: Polygon;
  private readonly R: number;
  private readonly sigma: number | undefined;
  private readonly w: number;
  private readonly drivethrough: boolean | undefined;
  /** The region with the obstacles grown by the clearance. */
  private readonly buffered: EdgeIndex;
  /**
   * The zone less half the working width, its obstacles grown by as much
   * (turn-region.ts): a way held to it keeps the whole implement inside the
   * field and off the obstacles.
   */
  private readonly turnArea: EdgeIndex | null;
  /** Which regions connectPoses tries: the turn area only, the field only, or the one then the other. */
  private mode: 'turnArea' | 'field' | 'both' = 'both';
  /** What the zone's routes share (the zone's regions, travel through it). */
  private readonly shared: SharedLinks;
  /** Travel along the headland rings. */
  private readonly ringTravel: RingTravel;
  /** Turns held to the turn area round inside corners and at the ends of tips. */
  private readonly tight: TightTurns;

  constructor(s: LinkSetup) {
    this.region = s.region;
    this.zone = s.zone;
    this.R = s.radius;
    this.sigma = s.curvatureRate;
    this.w = s.swathWidth;
    this.drivethrough = s.headlandDrivethrough;
    this.shared = sharedLinks(s);
    this.turnArea = this.shared.turnArea;
    this.buffered = this.shared.buffered;
    this.tight = new TightTurns({
      region: this.region,
      turnArea: this.turnArea,
      radius: this.R,
      curvatureRate: this.sigma,
      swathWidth: this.w,
    });
    this.ringTravel = new RingTravel({
      rings: s.travelRings,
      radius: this.R,
      swathWidth: this.w,
      turnArea: this.turnArea,
      link: (from, to, opts) => this.connectPoses(from, to, this.R, this.region, opts),
      held: () => this.mode === 'turnArea',
    });
  }

  /**
   * Every connection follows the machine's turn model (continuous curvature
   * with a rate limit), and none leaves the field from a pass that runs along
   * its edge. Ways across the zone (`region` the zone's own) keep the whole
   * implement inside the field where they can: held to the turn area first;
   * `only` asks for one of the two.
   */
  connectPoses(
    from: Pose,
    to: Pose,
    r: number,
    region: EdgeIndex,
    opts: ConnectOptions = {},
    only?: 'turnArea' | 'field',
  ): Connection | null {
    // Reversing only as far as a turn needs: a longer way back is driven forward along a headland or through the field.
    const capped = { maxReverse: MAX_REVERSE_RADII * r, ...opts };
    const o = this.sigma === undefined ? capped : { ...capped, curvatureRate: this.sigma };
    const mode = only ?? this.mode;
    const t = this.turnArea;
    if (region === this.region && t && mode !== 'field') {
      if (t.contains(from) && t.contains(to)) {
        const c = connectWith(from, to, r, t, o);
        if (c && staysInside(c, region)) return c;
      }
      if (mode === 'turnArea') return null;
    } else if (mode === 'turnArea') return null;
    // Keep the obstacle margin where the ends allow it; where no path keeps it (ends
    // in an obstacle's margin, a gap between obstacles narrower than the machine
    // needs to turn), hold the path to the obstacles themselves.
    const buffered = this.buffered;
    if (region === this.region && buffered !== region && buffered.contains(from) && buffered.contains(to)) {
      const c = connectWith(from, to, r, buffered, o);
      if (c && staysInside(c, region)) {
        this.overhanging.add(c);
        return c;
      }
    }
    const c = connectWith(from, to, r, region, o);
    if (!c || !staysInside(c, region)) return null;
    this.overhanging.add(c);
    return c;
  }

  /** A turn round an inside corner of the edge, held to the turn area (tight-turns.ts); null where none fits. */
  cornerTurn(from: Pose, to: Pose): Connection | null {
    return this.tight.cornerTurn(from, to);
  }

  /** A turn round at the end of a narrow tip, held to the turn area (tight-turns.ts); null where none fits. */
  tipTurn(from: Pose, to: Pose, maxIn: number, maxOut: number, fromBand = false): Connection | null {
    return this.tight.tipTurn(from, to, maxIn, maxOut, fromBand);
  }

  /** True where a way may start or end keeping the whole implement inside (or where no turn area is known). */
  inTurnArea(p: Point): boolean {
    return !this.turnArea || this.turnArea.contains(p);
  }

  /** Connections found outside the turn area (they may swing the implement over the edge). */
  private readonly overhanging = new WeakSet<Connection>();

  /** True for a connection found outside the turn area (it may swing the implement over the edge). */
  overhangs(c: Connection): boolean {
    return this.overhanging.has(c);
  }

  /** Length of the centre line of `c` closer than half the width to an edge [m], as the audit measures it. */
  private overhangLength(c: Connection): number {
    return overhangLength(this.zone, wayParts([c], false), this.w / 2);
  }

  /**
   * True when no stretch of the way (connections driven one after another
   * from one working part to the next) comes closer than half the width to
   * an edge, as the audit measures it: but where it leaves or joins those
   * parts no nearer the edge than they run.
   */
  keepsInside(way: readonly Connection[]): boolean {
    return overhangLength(this.zone, wayParts(way, true), this.w / 2) === 0;
  }

  /**
   * The way of `find`, held to the turn area first; where no way fits there,
   * any way inside the field.
   */
  private inTurnAreaFirst(find: () => Found | null, clear?: (f: Found) => Found): Found | null {
    if (!this.turnArea || this.mode !== 'both') return find();
    try {
      this.mode = 'turnArea';
      const f = find();
      // Travel held to the turn area may go a long way round (through a
      // strip barely wider than the working width, to where there is room
      // to turn): a shorter way in the field that keeps the implement
      // inside as well is taken instead.
      if (f && f.legs.length > 1) {
        this.mode = 'field';
        const g = find();
        if (g && g.length < f.length && this.keepsInside(g.legs.map(([c]) => c))) return g;
      }
      if (f) return f;
      this.mode = 'field';
      const g = find();
      return g && clear ? clear(g) : g;
    } finally {
      this.mode = 'both';
    }
  }

  /** The turn `c` found in the field, or where it swings the implement over the edge one that does not (clear-turns.ts). */
  clearOf(from: Pose, to: Pose, c: Connection | null): Connection | null {
    const t = this.turnArea;
    const R = this.R;
    if (!c || !t || this.sigma !== undefined || dist(from, to) > CLEAR_REACH_RADII * R) return c;
    // The same turn is cleared again and again (by every route of the zone): once is enough.
    const known = this.shared.cleared.get(c)?.find((k) => samePose(k.from, from) && samePose(k.to, to));
    if (known) return known.way;
    const s = { zone: this.zone, region: this.region, turnArea: t, R, hw: this.w / 2 };
    const way = clearOr(s, from, to, c, MAX_REVERSE_RADII * R, TIP_REACH_RADII * R, DETOUR_RADII * R);
    const list = this.shared.cleared.get(c);
    const entry = { from: { ...from }, to: { ...to }, way };
    if (list) list.push(entry);
    else this.shared.cleared.set(c, [entry]);
    return way;
  }

  /**
   * A turn of several moves back and forth where the machine is, then a turn
   * onto `to` with at most five radii of reversing; null where none fits
   * (and with a curvature-rate limit, whose turns this does not follow).
   */
  turnRound(from: Pose, to: Pose, only?: 'turnArea' | 'field'): Connection | null {
    if (this.sigma !== undefined) return null;
    const R = this.R;
    // Held to the turn area, the moves too keep the implement inside.
    const t = this.turnArea;
    const mode = only ?? this.mode;
    const held = mode === 'turnArea';
    if (held && !(t?.contains(from) && t.contains(to))) return null;
    // Every route of the zone asks for the same turns round (each a long search): each is found once.
    const key = `${mode} ${from.x} ${from.y} ${from.heading} ${to.x} ${to.y} ${to.heading}`;
    const known = this.shared.turnsRound.get(key);
    if (known !== undefined) return known;
    const c = multiPointTurn(from, to, R, held && t ? t : this.region, (a, b) =>
      this.connectPoses(a, b, R, this.region, {}, only),
    );
    const way = c && staysInside(c, this.region) ? c : null;
    this.shared.turnsRound.set(key, way);
    return way;
  }

  /**
   * Travel through the field along straight legs (built when first needed),
   * its turns held to the turn area while ways are.
   */
  fieldTravel(): { connect(from: Pose, to: Pose): Connection[] | null } {
    const held = this.heldTravel();
    if (this.mode === 'turnArea' && held) return { connect: (from, to) => this.heldConnect(held, from, to) };
    const field = this.plainTravel();
    if (this.mode === 'field' || !held) return field;
    // Either: held to the turn area where the ends allow, else anywhere in the field.
    return { connect: (from, to) => this.heldConnect(held, from, to) ?? field.connect(from, to) };
  }

  /**
   * Travel through the field to try in turn: held to the turn area (where
   * both ends lie in it), held to it up to straights along the lines of
   * ends just outside it (heldConnect; where one is), then anywhere in the
   * field.
   */
  fieldTravels(): { connect(from: Pose, to: Pose): Connection[] | null }[] {
    const held = this.heldTravel();
    const t = this.turnArea;
    const field = this.plainTravel();
    if (!held || !t) return [field];
    return [
      { connect: (from, to) => (t.contains(from) && t.contains(to) ? held.connect(from, to) : null) },
      {
        connect: (from, to) => (t.contains(from) && t.contains(to) ? null : this.heldConnect(held, from, to)),
      },
      field,
    ];
  }

  /**
   * Travel held to the turn area, also from or onto an end that lies just
   * outside it (a pass pulled nearer the edge than half the width, a track
   * that ends there): driven straight along the end's line between it and
   * the turn area (forwards, else backing up at most five turning radii),
   * drawing no nearer the edge than the end. Null where no such way is found.
   */
  private heldConnect(held: FieldTravel, from: Pose, to: Pose): Connection[] | null {
    const t = this.turnArea;
    if (!t) return null;
    if (t.contains(from) && t.contains(to)) return held.connect(from, to);
    const R = this.R;
    const out = t.contains(from) ? null : this.lineInto(from, 1);
    const onto = t.contains(to) ? null : this.lineInto(to, -1);
    if ((!t.contains(from) && !out) || (!t.contains(to) && !onto)) return null;
    const a = out ? out.pose : from;
    const b = onto ? onto.pose : to;
    const legs = held.connect(a, b);
    if (!legs) return null;
    const joined = legs.slice();
    if (out) joined[0] = withStraight(out, joined[0], null);
    if (onto) joined[joined.length - 1] = withStraight(null, joined[joined.length - 1], onto);
    // No run backwards longer than a turn needs.
    return joined.some((c) => reversesFarther(c, MAX_REVERSE_RADII * R)) ? null : joined;
  }

  /**
   * A turn from `from` onto `to` held to the turn area; where an end lies
   * just outside it (a pass pulled nearer the edge than half the width,
   * round a small obstacle, say), up to a straight along its line that
   * draws no nearer the edge than the end. Null where none fits.
   */
  private heldOnto(from: Pose, to: Pose): Connection | null {
    const t = this.turnArea;
    if (!t) return null;
    if (t.contains(from) && t.contains(to))
      return this.connectPoses(from, to, this.R, this.region, {}, 'turnArea');
    const out = t.contains(from) ? null : this.lineInto(from, 1);
    const onto = t.contains(to) ? null : this.lineInto(to, -1);
    if ((!t.contains(from) && !out) || (!t.contains(to) && !onto)) return null;
    const c = this.connectPoses(
      out ? out.pose : from,
      onto ? onto.pose : to,
      this.R,
      this.region,
      {},
      'turnArea',
    );
    if (!c) return null;
    const joined = withStraight(out, c, onto);
    return reversesFarther(joined, MAX_REVERSE_RADII * this.R) ? null : joined;
  }

  /**
   * A pose on the line of `p` in the turn area that a straight reaches from
   * `p` (from `p` for side 1, onto it for -1) drawing no nearer the edge
   * than p: ahead of it driving forwards (behind it onto it), else behind it
   * backing up (ahead of it onto it), at most five turning radii away.
   */
  private lineInto(p: Pose, side: 1 | -1): { pose: Pose; points: Point[]; reverse: boolean } | null {
    const t = this.turnArea;
    if (!t) return null;
    const R = this.R;
    for (const reverse of [false, true]) {
      const k = (reverse ? -side : side) as number;
      for (const d of LINE_INTO_RADII) {
        const q = {
          x: p.x + k * d * R * Math.cos(p.heading),
          y: p.y + k * d * R * Math.sin(p.heading),
          heading: p.heading,
        };
        if (!this.tight.straightInside(p, q, t)) continue;
        return { pose: q, points: side === 1 ? [p, q] : [q, p], reverse };
      }
    }
    return null;
  }

  /**
   * Travel whose waypoints keep their clearances inside the turn area (half
   * the working width more from the edge and the obstacles) and whose legs
   * are held to it.
   */
  private heldTravel(): FieldTravel | null {
    if (!this.turnArea) return null;
    this.shared.turnAreaTravel ??= new FieldTravel(
      turnRegionPolygons(this.zone, this.w / 2),
      this.turnArea,
      this.R,
      this.sigma,
      true,
    );
    return this.shared.turnAreaTravel;
  }

  /** Travel anywhere in the field. */
  private plainTravel(): FieldTravel {
    this.shared.travel ??= new FieldTravel(this.zone, this.region, this.R, this.sigma);
    return this.shared.travel;
  }

  /**
   * The shortest way found from `from` to `to`: a direct path (forward
   * first), along a headland ring, or (with `anywhere`) through the field
   * along straight legs; null if none fits inside the field.
   */
  findLink(
    from: Pose,
    to: Pose,
    type: PathPart['type'],
    anywhere: boolean,
    cached: Connection | null = null,
  ): Found | null {
    return this.inTurnAreaFirst(
      () => this.findIn(from, to, type, anywhere, this.usable(cached)),
      (f) => {
        const c = f.legs.length === 1 ? this.clearOf(from, to, f.legs[0][0]) : null;
        return c && c !== f.legs[0][0] ? { length: c.length, legs: [[c, f.legs[0][1]]] } : f;
      },
    );
  }

  /** A connection found before, where the present mode allows it. */
  private usable(c: Connection | null): Connection | null {
    return c && this.mode === 'turnArea' && this.overhanging.has(c) ? null : c;
  }

  private findIn(
    from: Pose,
    to: Pose,
    type: PathPart['type'],
    anywhere: boolean,
    cached: Connection | null,
  ): Found | null {
    const R = this.R;
    if (this.drivethrough) {
      // Straight through the headland: a direct path (forward first), else straight legs across the field.
      const d =
        cached ??
        this.connectPoses(from, to, R, this.region, { allowReverse: false }) ??
        this.connectPoses(from, to, R, this.region);
      if (d) return { length: d.length, legs: [[d, type]] };
      if (!anywhere) return null;
      const legs = this.fieldTravel().connect(from, to);
      if (!legs) {
        const far = this.connectPoses(from, to, R, this.region, { maxReverse: Number.POSITIVE_INFINITY });
        return far ? { length: far.length, legs: [[far, type]] } : null;
      }
      return { length: legs.reduce((a, c) => a + c.length, 0), legs: legs.map((c) => [c, 'Connector']) };
    }
    // Forward paths first (direct, then along a headland ring); reversing only when neither fits.
    let direct = cached ?? this.connectPoses(from, to, R, this.region, { allowReverse: false });
    let via =
      direct && direct.length < 6 * R + dist(from, to) ? null : this.ringTravel.alongRing(from, to, false);
    if (!direct && !via) {
      direct = this.connectPoses(from, to, R, this.region);
      via = direct
        ? null
        : (this.ringTravel.alongRing(from, to, true) ?? this.ringTravel.viaTwoRings(from, to));
    } else if (!direct && via && via.length > 6 * R + dist(from, to)) {
      // A long way round the headland against a turn with a short reversing
      // manoeuvre: the turn, when it saves more than its stops cost.
      const turn = this.connectPoses(from, to, R, this.region);
      if (turn && turn.length + CUSP_PENALTY_RADII * R < via.length) direct = turn;
    }
    const best = pickShorter(direct, via);
    if (best) return best === direct ? { length: direct.length, legs: [[direct, type]] } : (best as Found);
    if (!anywhere) return null;
    // Turning round on the spot in several moves (a dead-end tip, a strip
    // narrower than a forward loop), then through the field along straight
    // legs between waypoints, else a turn that reverses farther than a turn needs.
    // A dead-end tip is seldom wide enough for the turn area: a turn round
    // in the field beats a long way through it.
    // Held to the turn area, a way through the field that keeps the implement
    // inside beats such a turn round unless it is a long way round.
    const held = this.mode === 'turnArea';
    const turned =
      (held && dist(from, to) <= TIP_REACH_RADII * R
        ? this.tipTurn(from, to, TIP_REACH_RADII * R, TIP_REACH_RADII * R)
        : null) ?? this.turnRound(from, to);
    if (turned) return { length: turned.length, legs: [[turned, type]] };
    const legs = this.fieldTravel().connect(from, to);
    const travel = legs ? legs.reduce((a, c) => a + c.length, 0) : Number.POSITIVE_INFINITY;
    // No turn is shorter than the distance between its ends: travel within
    // the detour allowed of that beats every turn below, which is then not
    // looked for.
    if (legs && travel < dist(from, to) + DETOUR_RADII * R - 1e-6)
      return { length: travel, legs: legs.map((c) => [c, 'Connector']) };
    const over = held ? this.clearOf(from, to, this.turnRound(from, to, 'field')) : null;
    if (over) {
      // A turn far over the edge is worth a longer way round (measured only where that decides).
      const allowed = () =>
        DETOUR_RADII * R + DETOUR_PER_OVERHANG * Math.max(0, this.overhangLength(over) - OVERHANG_FREE);
      if (
        !(travel <= over.length + DETOUR_RADII * R) &&
        (!Number.isFinite(travel) || !(travel <= over.length + allowed()))
      )
        return { length: over.length, legs: [[over, type]] };
    } else if (held && legs) {
      // Nor a long way round for a turn that swings over the edge: the way
      // outside the turn area is then looked for (and the overhang reported).
      const turn = this.clearOf(from, to, this.connectPoses(from, to, R, this.region, {}, 'field'));
      if (turn && travel > turn.length + DETOUR_RADII * R)
        return { length: turn.length, legs: [[turn, type]] };
    }
    if (!legs) {
      const far = this.connectPoses(from, to, R, this.region, { maxReverse: Number.POSITIVE_INFINITY });
      return far ? { length: far.length, legs: [[far, type]] } : null;
    }
    return { length: travel, legs: legs.map((c) => [c, 'Connector']) };
  }

  /**
   * A cheaper findLink for the optimizer's costs: a forward turn, the
   * headland ring, or a reversing turn; no search across several rings or
   * through the field (those transitions are rare and priced as a crossing).
   */
  probeLink(from: Pose, to: Pose): Found | null {
    return this.inTurnAreaFirst(() => this.probeIn(from, to));
  }

  private probeIn(from: Pose, to: Pose): Found | null {
    const R = this.R;
    if (this.drivethrough) return this.findIn(from, to, 'Turn', false, null);
    const direct = this.connectPoses(from, to, R, this.region, { allowReverse: false });
    if (direct && direct.length < 6 * R + dist(from, to))
      return { length: direct.length, legs: [[direct, 'Turn']] };
    const via = this.ringTravel.alongRing(from, to, false);
    const best = pickShorter(direct, via);
    if (best) return best === direct ? { length: direct.length, legs: [[direct, 'Turn']] } : (best as Found);
    return this.findIn(from, to, 'Turn', false, null);
  }

  /**
   * A way onto a ring (driven from the pose it is joined at, in direction
   * `dir`) that keeps the whole implement inside the field and off the
   * obstacles, for where the nearest joins swing it over the edge: a turn
   * onto the ring farther along it, where the ring runs clear of the edge,
   * else such a turn that backs up straight first (where the way ahead
   * leaves the turn area at once, at the tip of a narrow strip, say, or from
   * the end of a pass pulled nearer the edge than half the width), else
   * travel through the field held to the turn area, else a turn held to it
   * between straights along the lines of the ends (joinAlongLines). At most
   * `maxLength` long, joined where `usable` allows (by position along the
   * ring); null where none is.
   */
  joinInside(
    from: Pose,
    path: RingPath,
    dirs: readonly RingDirection[],
    maxLength: number,
    usable: (s: number) => boolean = () => true,
  ): RingJoin | null {
    const t = this.turnArea;
    if (!t) return null;
    // From the band along the edge (a pass pulled round an obstacle's corner) by backing up first.
    const band = !t.contains(from);
    const R = this.R;
    const s0 = path.project(from);
    // A short ring (round a small obstacle) is tried all round, every eighth of its length.
    const offsets = JOIN_RADII.map((k) => k * R);
    if (offsets[offsets.length - 1] > path.length / 2) {
      const eighth = path.length / 8;
      offsets.splice(
        0,
        offsets.length,
        ...offsets.filter((d) => d < eighth),
        eighth,
        2 * eighth,
        3 * eighth,
        4 * eighth,
      );
    }
    // (Places no way reaches shorter than the best found are not looked for: shortestOf.)
    const join = (p: { s: number; dir: RingDirection }, c: Connection): RingJoin => ({
      s: p.s,
      dir: p.dir,
      legs: [[c, 'HeadlandConnector']],
    });
    const inTurnArea = (p: { to: Pose; s: number }) => t.contains(p.to) && usable(p.s);
    const turns = shortestOf(
      ringPlaces(from, path, s0, band ? [] : dirs, offsets, R).filter(inTurnArea),
      (p) => this.connectPoses(from, p.to, R, this.region, {}, 'turnArea'),
      maxLength,
    );
    if (turns) return join(turns.place, turns.way);
    // A turn that backs up first, where the way ahead leaves the turn area
    // within two turning radii (the way in ends at a narrow strip's tip, say).
    const ahead = { x: from.x + 2 * R * Math.cos(from.heading), y: from.y + 2 * R * Math.sin(from.heading) };
    const backing = band || !t.contains(ahead) || t.segmentCrosses(from, ahead);
    const tips = shortestOf(
      ringPlaces(from, path, s0, backing ? dirs : [], offsets, R).filter(inTurnArea),
      (p) => this.tipTurn(from, p.to, TIP_REACH_RADII * R, TIP_REACH_RADII * R, band),
      maxLength,
    );
    if (tips) return join(tips.place, tips.way);
    const held = this.heldTravel();
    if (!held || band) return this.joinAlongLines(from, path, dirs, offsets, maxLength, usable);
    // No run backwards longer than a turn needs (travel falls back to longer ones).
    const travel = shortestOf(
      ringPlaces(from, path, s0, dirs, [2 * R, 5 * R], R).filter(inTurnArea),
      (p) => {
        const legs = held.connect(from, p.to);
        if (!legs || legs.some((c) => reversesFarther(c, MAX_REVERSE_RADII * R))) return null;
        return { legs, length: legs.reduce((a, c) => a + c.length, 0) };
      },
      maxLength,
    );
    if (travel)
      return {
        s: travel.place.s,
        dir: travel.place.dir,
        legs: travel.way.legs.map((c) => [c, 'Connector']),
      };
    return this.joinAlongLines(from, path, dirs, offsets, maxLength, usable);
  }

  /**
   * Where no join of joinInside keeps the implement inside: a turn held to
   * the turn area between straights along the lines of the ends that lie
   * just outside it (heldOnto), from the end of a pass pulled nearer the
   * edge than half the width, onto a pass round a small obstacle that runs
   * so nearly all round, say. The shortest at the ring's places `offsets`
   * either way; where no such turn fits, travel through the field held so
   * (heldConnect) at the nearest two places either way. Null where none is.
   */
  private joinAlongLines(
    from: Pose,
    path: RingPath,
    dirs: readonly RingDirection[],
    offsets: readonly number[],
    maxLength: number,
    usable: (s: number) => boolean,
  ): RingJoin | null {
    const s0 = path.project(from);
    const places = ringPlaces(from, path, s0, dirs, offsets, this.R).filter((p) => usable(p.s));
    const turn = shortestOf(places, (p) => this.heldOnto(from, p.to), maxLength);
    if (turn)
      return {
        s: turn.place.s,
        dir: turn.place.dir,
        legs: [[turn.way, 'HeadlandConnector']],
      };
    const held = this.heldTravel();
    if (!held) return null;
    // Else through the field, held so, at the nearest places either way.
    const travel = shortestOf(
      ringPlaces(from, path, s0, dirs, offsets.slice(0, 2), this.R).filter((p) => usable(p.s)),
      (p) => {
        const legs = this.heldConnect(held, from, p.to);
        return legs ? { legs, length: legs.reduce((a, c) => a + c.length, 0) } : null;
      },
      maxLength,
    );
    return travel
      ? {
          s: travel.place.s,
          dir: travel.place.dir,
          legs: travel.way.legs.map((c) => [c, 'Connector']),
        }
      : null;
  }

  /**
   * Along one headland ring that passes near both ends: held to the turn
   * area first (the ways onto the ring and off it, and the stretch along it);
   * with `heldOnly`, only so.
   */
  viaRing(from: Pose, to: Pose, allowReverse: boolean, heldOnly = false): Found | null {
    if (!heldOnly) return this.inTurnAreaFirst(() => this.ringTravel.alongRing(from, to, allowReverse));
    if (!this.turnArea || this.mode !== 'both') return null;
    this.mode = 'turnArea';
    try {
      return this.ringTravel.alongRing(from, to, allowReverse);
    } finally {
      this.mode = 'both';
    }
  }
}

/**
 * The pieces of connections driven one after another as the parts of a
 * route; with `between`, after a working part ending where they start and
 * before one starting where they end (the audit measures a way that leaves
 * or joins a working part so).
 */
function wayParts(way: readonly Connection[], between: boolean): PathPart[] {
  const parts: PathPart[] = [];
  const end = (q: Point): PathPart => ({
    type: 'RouteTrack',
    points: [q, q],
    working: true,
    sequence: parts.length,
  });
  const first = way[0]?.pieces[0]?.points[0];
  if (between && first) parts.push(end(first));
  for (const c of way)
    for (const piece of c.pieces)
      parts.push({ type: 'Connector', points: piece.points, working: false, sequence: parts.length });
  const last = way.at(-1)?.pieces.at(-1)?.points.at(-1);
  if (between && last) parts.push(end(last));
  return parts;
}

/** The connection `middle` with a straight driven before it and one after it (joinedPieces). */
function withStraight(
  before: { points: Point[]; reverse: boolean } | null,
  middle: Connection,
  after: { points: Point[]; reverse: boolean } | null,
): Connection {
  const length =
    middle.length + (before ? polylineLength(before.points) : 0) + (after ? polylineLength(after.points) : 0);
  return { pieces: joinedPieces(before, middle, after), length, kind: middle.kind };
}

/** True when a piece of the connection runs backwards farther than `max` [m]. */
function reversesFarther(c: Connection, max: number): boolean {
  return c.pieces.some((pc) => pc.reverse && polylineLength(pc.points) > max + 1e-6);
}
