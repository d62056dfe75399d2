"""The drawing shared by the site's SVG charts (core.charts): scales, the frame, axis steps, tick labels and
polyline points. No database."""

import pytest

from core.charts import Frame, inverted_scale, label_every, nice_step, polyline, rating_step, scale


def test_a_scale_maps_its_domain_onto_the_plot_rounded_to_a_tenth():
    x = scale(0, 3, 10, 100)
    assert [x(0), x(1), x(3)] == [10, 43.3, 110]


def test_a_scale_of_one_value_puts_every_value_in_the_middle():
    assert scale(5, 5, 10, 100)(5) == 60


def test_an_inverted_scale_puts_the_highest_value_at_the_top():
    y = inverted_scale(1400, 1600, 14, 200)
    assert [y(1600), y(1500), y(1400)] == [14, 114, 214]


def test_a_frame_gives_its_plot_size_scales_and_the_template_coordinates():
    frame = Frame(width=720, height=290, left=52, right=16, top=14, bottom=64)
    assert (frame.plot_width, frame.plot_height) == (652, 212)
    assert frame.x(0, 10)(10) == 704
    assert frame.y(0, 10)(10) == 14
    assert frame.box() == {"width": 720, "height": 290, "left": 52, "right": 704, "top": 14, "bottom": 226}


@pytest.mark.parametrize(("span", "step"), [(1, 25), (150, 25), (151, 50), (600, 100), (3000, 500), (3001, 1000)])
def test_a_rating_axis_takes_at_most_six_steps_of_rating_points(span, step):
    assert rating_step(span) == step


@pytest.mark.parametrize(("span", "step"), [(0, 1.0), (10, 2.0), (12, 2.5), (1000, 200.0), (0.5, 1.0)])
def test_any_axis_takes_about_five_steps_of_one_two_or_five_times_a_power_of_ten(span, step):
    assert nice_step(span) == step


def test_ticks_are_labelled_at_most_so_many_times():
    assert [label_every(count, 8) for count in (0, 1, 8, 9, 16, 17)] == [1, 1, 1, 2, 2, 3]


def test_polyline_points_are_x_comma_y_pairs():
    assert polyline([(1, 2.5), (3.0, 4)]) == "1,2.5 3.0,4"
    assert polyline([]) == ""
