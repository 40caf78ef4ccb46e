set terminal pngcairo size 900,520 noenhanced font 'sans,11'
set grid
set key top left
set output 'agreement.png'
set logscale x
set key bottom right
set xlabel 'training pairs'
set ylabel 'agreement with reference labels (mean, 95% interval)'
plot 'quality.tsv' u 1:2:3 w yerrorlines lw 2 t 'scoring (MIS)', '' u 1:4:5 w yerrorlines lw 2 t 'packed generation', '' u 1:8 w lp lw 2 dt 4 t 'packed generation, candidates shuffled', 0.7435 w l dt 2 lc 'gray' t 'best profile-blind answer (scoring)', 0.8361875 w l dt 3 lc 'black' t 'best profile-blind answer (generation)'
