set terminal pngcairo size 900,520 noenhanced font 'sans,11'
set grid
set key top left
set output 'agreement.png'
set logscale x
set xlabel 'training pairs'
set ylabel 'agreement with reference labels'
plot 'quality.tsv' u 1:2 w lp lw 2 t 'scoring (MIS)', '' u 1:3 w lp lw 2 t 'packed generation'
