import {
  BarController, BarElement, CategoryScale, Chart, Filler, Legend, LinearScale, LineController, LineElement,
  LogarithmicScale, PointElement, Title, Tooltip
} from 'chart.js'
import zoomPlugin from 'chartjs-plugin-zoom'

// Register only what the views draw, so the bundle carries no unused chart types.
Chart.register(LineController, LineElement, PointElement, BarController, BarElement, LinearScale,
  LogarithmicScale, CategoryScale, Filler, Legend, Title, Tooltip, zoomPlugin)

export { Chart }
