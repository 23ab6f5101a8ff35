/** Chart.js, with only the parts the page uses registered (keeps the bundle small). */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Filler,
  Legend,
  LineController,
  LineElement,
  LinearScale,
  LogarithmicScale,
  PointElement,
  Tooltip,
} from 'chart.js';

Chart.register(LineController, LineElement, PointElement, BarController, BarElement, LinearScale, LogarithmicScale, CategoryScale, Tooltip, Legend, Filler);

Chart.defaults.font.family = getComputedStyle(document.documentElement).getPropertyValue('--font').trim() || 'system-ui, sans-serif';
Chart.defaults.color = '#3d4a5c';
Chart.defaults.maintainAspectRatio = false;
Chart.defaults.animation = false;

/** One color per scheme, used by every chart and legend. */
export const SCHEME_COLORS: Record<string, string> = {
  cole: '#2563eb',
  'cole-star': '#7c3aed',
  lvmt: '#059669',
  forkless: '#0891b2',
  mbt: '#db2777',
  pos: '#65a30d',
  mpt: '#d97706',
};

export { Chart };
