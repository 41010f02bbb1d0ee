import {
  BarController, BarElement, CategoryScale, Chart, Filler, Legend, LinearScale, LineController, LineElement,
  LogarithmicScale, PointElement, Title, Tooltip
} from 'chart.js'
import { MatrixController, MatrixElement } from 'chartjs-chart-matrix'
import zoomPlugin from 'chartjs-plugin-zoom'

// Register only what the views draw, so the bundle carries no unused chart types.
Chart.register(LineController, LineElement, PointElement, BarController, BarElement, LinearScale,
  LogarithmicScale, CategoryScale, Filler, Legend, Title, Tooltip, MatrixController, MatrixElement, zoomPlugin)

export { Chart }
