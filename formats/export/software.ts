/** How exports name the software that wrote them (ISO 11783 ManagementSoftware*, GPX creator, KML and DBF headers). */
import pkg from '../../package.json' with { type: 'json' };

export const EXPORT_SOFTWARE = 'Tramline';
export const EXPORT_SOFTWARE_VERSION: string = pkg.version;
